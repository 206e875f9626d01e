"""Registry of every predstab measure, for the common and the property tests.

Each entry says how to call the measure on an (objects x replicates) matrix, which
kind of data it takes, which transformations of the data leave it unchanged, its
documented range, and the two degenerate cases of the shared convention
(``predstab._core._convention``): all values equal (D_o = D_e = 0 -> 1 with a
``PredstabDegenerateWarning``) and D_e = 0 with D_o > 0 (NaN with a
``PredstabUndefinedWarning``) -- or why a case cannot occur for that measure.

scikit-learn's ``sklearn/utils/estimator_checks.py`` + ``tests/test_common.py`` is the model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

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
    return lambda x, baseline=None, target=None: predstab.krippendorff_alpha(x, scale=level).value


def _stab(fn, scale):
    if scale == "ordinal":
        return lambda x, baseline=None, target=None: fn(
            x, _pooled(x, baseline), scale="ordinal", categories=_levels(x, baseline)).value
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


# ======================================================================================
# Every public function and result, for tests/test_param_registry.py and
# tests/test_result_convention.py
# ======================================================================================

_RATINGS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
                    dtype=float)  # Shrout & Fleiss (1979), 6 targets x 4 judges
_LABELS = [["a", "a", "a"], ["a", "b", "a"], ["b", "b", "b"], ["c", "c", "b"], ["c", "c", "c"]]
_GRID = ([250, 500, 750, 1000, 2000], [0.488, 0.679, 0.704, 0.772, 0.870])
_INCOMPLETE = np.where(np.eye(6, 4, dtype=bool), np.nan, _RATINGS)  # Shrout & Fleiss with 4 ratings missing
_LONG = pd.DataFrame({"id": [1, 1, 2, 2], "judge": ["a", "b", "a", "b"], "score": [1.0, 2.0, 3.0, None]})


def _regression_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + rng.normal(scale=0.5, size=40)
    return X[:30], y[:30], X[30:]


def _forest():
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=5)


def _repeated(**kw):
    return predstab.repeated_predictions(_forest(), *_regression_data(), n_repeats=2, random_state=0, **kw)


def _classes():
    from sklearn.ensemble import RandomForestClassifier

    X, y, X_test = _regression_data()
    labels = np.where(y > 0, "up", "down").astype(object)
    return predstab.repeated_predictions(RandomForestClassifier(n_estimators=2), X, labels, X_test,
                                         n_repeats=2, random_state=0)


def _fit():
    return predstab.fit_2pl(*_GRID)


# a small, fast tuning run (refit and pool results, closed-form bands of a 16-tree pool)
_TUNE = {"grid": (2, 4, 8), "n_repeats": 2, "measures": ("icc",), "pool_size": 16, "n_resamples": 0,
         "random_state": 0}


def _tuning(**kw):
    return predstab.tune_num_learners(_forest(), *_regression_data(), **{**_TUNE, **kw})


def _pool():
    X, y, X_test = _regression_data()
    return predstab.TreePool(_forest(), n_learners=16, random_state=0).fit(X, y, X_test)


def _on_cluster(call):
    """``call(client)`` on an in-process Dask cluster of one worker thread, closed afterwards (no
    client stays active for the other tests)."""
    import distributed

    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as c:
        return call(c)


def _dask_pool(client):
    X, y, X_test = _regression_data()
    return predstab.DaskTreePool(_forest(), n_learners=8, random_state=0, client=client).fit(X, y, X_test)


def _closed(fig):
    """A figure of a plot call, closed (the registry only checks the call)."""
    import matplotlib.pyplot as plt

    plt.close(fig)
    return fig


def _csv():
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "t.csv"
    path.write_text("a,b\n1,2\n3,4\n")
    return path


def _case(name):
    """A small (objects x raters) matrix of the R reference (validation/r-reference/agreement/cases)."""
    import pandas as pd

    from validation._table import REFERENCE

    return pd.read_csv(REFERENCE / "agreement" / "cases" / f"{name}.csv").to_numpy()


_BINARY = _case("c_bin_40x2")  # 40 objects x 2 raters, 0/1
_ORDINAL = _case("o_30x2")  # 30 objects x 2 raters, scores 1..5
_ORDINAL_MANY = _case("o_60x3")  # 60 objects x 3 raters
_THREE_CATS = _case("c_3cat_40x10")[:, :4]  # 40 objects x 4 raters, categories 1..3
_REPEATED = _case("rii_15_3x2")  # 15 objects x (3 raters x 2 measurements)
_IOTA = [_case("iq_20x3_v1"), _case("iq_20x3_v2")]  # two variables, 20 objects x 3 raters
_CAT_COUNTS = np.stack([(_THREE_CATS == k).sum(axis=1) for k in (1, 2, 3)], axis=1)  # objects x categories
_ITEMS = _case("m_30x4")  # 30 persons x 4 items


def _compare_calls():
    """predstab.compare's example calls: the one table of tests/compare/_examples.py."""
    from predstab import compare
    from tests.compare._examples import CALLS as COMPARE_CALLS

    return {f"compare.{name}": (getattr(compare, name), args, kwargs)
            for name, (args, kwargs) in COMPARE_CALLS.items()}


def _compare(name, *args, **kwargs):
    """A result of predstab.compare: the example call of ``name`` or the given arguments."""
    from predstab import compare
    from tests.compare._examples import CALLS as COMPARE_CALLS

    default_args, default_kwargs = COMPARE_CALLS[name]
    return getattr(compare, name)(*(args or default_args), **(default_kwargs if not args else {}), **kwargs)


# A valid call of every public function and declared public method: name -> (callable, args, kwargs).
# The registry test substitutes the invalid values generated from each declared constraint, one at a
# time, and expects InvalidParameterError naming the parameter.
CALLS = {
    "icc": (predstab.icc, (_RATINGS,), {"model": "twoway", "type": "agreement"}),
    "icc_table": (predstab.icc_table, (_RATINGS,), {}),
    "icc_reml": (predstab.icc_reml, (_RATINGS,), {"confidence_level": 0.9}),
    "ratings_from_long": (predstab.ratings_from_long, (_LONG,),
                          {"object": "id", "rater": "judge", "value": "score"}),
    "fleiss_kappa": (predstab.fleiss_kappa, (_LABELS,), {}),
    "krippendorff_alpha": (predstab.krippendorff_alpha, (_RATINGS,), {"scale": "ordinal"}),
    "fit_2pl": (predstab.fit_2pl, _GRID, {}),
    "TwoPL.recommend": (lambda **kw: _fit().recommend(**kw), (), {}),
    "TwoPL.stability": (lambda *a, **kw: _fit().stability(*a, **kw), (1000,), {}),
    "TwoPL.num_learners_for": (lambda *a, **kw: _fit().num_learners_for(*a, **kw), (0.9,), {}),
    "selection_stability": (predstab.selection_stability, (_RATINGS,), {"fraction": 0.5}),
    "importance_stability": (predstab.importance_stability, (_RATINGS,), {"fraction": 0.5}),
    "repeated_predictions": (predstab.repeated_predictions, (_forest(), *_regression_data()),
                             {"n_repeats": 2, "random_state": 0}),
    "RepeatedPredictions.phi": (lambda **kw: _repeated().phi(**kw), (), {}),
    "RepeatedPredictions.psi": (lambda **kw: _repeated().psi(**kw), (), {}),
    "make_stability_scorer": (predstab.make_stability_scorer, ("psi",), {}),
    "phi": (predstab.phi, (_RATINGS, _RATINGS[:, 0]), {"scale": "metric"}),
    "psi": (predstab.psi, (_RATINGS, _RATINGS[:, 0]), {"scale": "metric"}),
    "calculate_phi": (predstab.calculate_phi, (_RATINGS, _RATINGS[:, 0]), {}),
    "calculate_psi": (predstab.calculate_psi, (_RATINGS, _RATINGS[:, 0]), {}),
    "StabilityResult.bootstrap_interval": (
        lambda *a, **kw: predstab.phi(_RATINGS, _RATINGS[:, 0]).bootstrap_interval(*a, **kw), (),
        {"n_resamples": 99, "random_state": 0}),
    # agreement coefficients of irr and psych (R reference cases)
    "agree": (predstab.agree, (_THREE_CATS,), {"tolerance": 1}),
    "kendall_w": (predstab.kendall_w, (_ORDINAL_MANY,), {"correction": True}),
    "finn": (predstab.finn, (_ORDINAL_MANY,), {"n_categories": 5, "model": "twoway"}),
    "robinson_a": (predstab.robinson_a, (_ORDINAL_MANY,), {}),
    "mean_correlation": (predstab.mean_correlation, (_IOTA[0],), {}),
    "mean_spearman": (predstab.mean_spearman, (_ORDINAL_MANY,), {}),
    "maxwell_re": (predstab.maxwell_re, (_BINARY,), {}),
    "rater_bias": (predstab.rater_bias, (_ORDINAL,), {}),
    "stuart_maxwell": (predstab.stuart_maxwell, (_ORDINAL,), {}),
    "bhapkar": (predstab.bhapkar, (_ORDINAL,), {}),
    "fleiss_levin_paik": (predstab.fleiss_levin_paik, (_THREE_CATS[:, :2],), {}),
    "iota": (predstab.iota, (_IOTA,), {"scale": "quantitative", "standardize": True}),
    "inter_intra_reliability": (predstab.inter_intra_reliability, (_REPEATED,), {"n_raters": 3}),
    "cohen_kappa": (predstab.cohen_kappa, (_ORDINAL,),
                    {"weights": "quadratic", "categories": [1, 2, 3, 4, 5]}),
    "light_kappa": (predstab.light_kappa, (_THREE_CATS,), {}),
    "kappa_sample_size": (predstab.kappa_sample_size, (0.6, 0.4), {"rate1": 0.3, "rate2": 0.4}),
    # irrCAC's coefficients and psych::alpha
    "percent_agreement": (predstab.percent_agreement, (_THREE_CATS,), {"weights": "linear"}),
    "gwet_ac1": (predstab.gwet_ac1, (_THREE_CATS,), {"weights": "quadratic", "categories": [1, 2, 3]}),
    "brennan_prediger": (predstab.brennan_prediger, (_CAT_COUNTS,), {"counts": True}),
    "conger_kappa": (predstab.conger_kappa, (_THREE_CATS,), {"confidence_level": 0.9}),
    "cronbach_alpha": (predstab.cronbach_alpha, (_ITEMS,), {}),
    # tuning the number of learners, the tree pool's closed forms, the file reader
    "tune_num_learners": (predstab.tune_num_learners, (_forest(), *_regression_data()), dict(_TUNE)),
    "TuningResult.seconds_for": (lambda *a, **kw: _tuning().seconds_for(*a, **kw), (100,), {}),
    "TreePool.closed_form": (lambda *a, **kw: _pool().closed_form(*a, **kw), ([4, 8],),
                             {"n_resamples": 5, "random_state": 0}),
    "TreePool.fit": (lambda *a, **kw: predstab.TreePool(_forest(), n_learners=8, random_state=0)
                     .fit(*a, **kw), _regression_data(), {}),
    "TreePool.extend": (lambda *a, **kw: _pool().extend(*a, **kw), (4,), {}),
    "DaskTreePool.fit": (lambda *a, **kw: _on_cluster(
        lambda c: predstab.DaskTreePool(_forest(), n_learners=8, random_state=0, client=c).fit(*a, **kw)),
        _regression_data(), {}),
    "DaskTreePool.extend": (lambda *a, **kw: _on_cluster(lambda c: _dask_pool(c).extend(*a, **kw)), (4,), {}),
    "TreePool.forests": (lambda *a, **kw: _pool().forests(*a, **kw), (4,), {"n_forests": 2}),
    "TreePool.oob_baseline": (lambda *a, **kw: _pool().oob_baseline(*a, **kw), (), {}),
    "StabilityResult.per_object_frame": (
        lambda *a, **kw: predstab.phi(_RATINGS, _RATINGS[:, 0]).per_object_frame(*a, **kw), (), {}),
    "read_table": (predstab.read_table, (_csv(),), {}),
    # results' .plot()
    "TuningResult.plot": (lambda **kw: _closed(_with_warnings_ignored(_tuning)().plot(**kw)), (), {}),
    "StabilityResult.plot": (lambda **kw: _closed(predstab.phi(_RATINGS, _RATINGS[:, 0]).plot(**kw)), (), {}),
    "compare.FriedmanNemenyiResult.plot": (lambda **kw: _closed(_compare("friedman_nemenyi").plot(**kw)),
                                           (), {}),
    "compare.BonferroniDunnResult.plot": (lambda **kw: _closed(_compare("bonferroni_dunn").plot(**kw)),
                                          (), {}),
    "compare.FriedmanNemenyiResult.at_significance": (
        lambda *a, **kw: _compare("friedman_nemenyi").at_significance(*a, **kw), (0.01,), {}),
    # predstab.compare: the calls of tests/compare/_examples.py
    **_compare_calls(),
}

# Where a call goes through a lambda, the function whose declarations it exercises.
TARGETS = {
    "TwoPL.recommend": lambda: predstab.TwoPL.recommend,
    "TwoPL.stability": lambda: predstab.TwoPL.stability,
    "TwoPL.num_learners_for": lambda: predstab.TwoPL.num_learners_for,
    "RepeatedPredictions.phi": lambda: predstab.RepeatedPredictions.phi,
    "RepeatedPredictions.psi": lambda: predstab.RepeatedPredictions.psi,
    "StabilityResult.bootstrap_interval": lambda: predstab.StabilityResult.bootstrap_interval,
    "TuningResult.seconds_for": lambda: predstab.TuningResult.seconds_for,
    "TreePool.closed_form": lambda: predstab.TreePool.closed_form,
    "TreePool.fit": lambda: predstab.TreePool.fit,
    "TreePool.extend": lambda: predstab.TreePool.extend,
    "DaskTreePool.fit": lambda: predstab.DaskTreePool.fit,
    "DaskTreePool.extend": lambda: predstab.DaskTreePool.extend,
    "TreePool.forests": lambda: predstab.TreePool.forests,
    "TreePool.oob_baseline": lambda: predstab.TreePool.oob_baseline,
    "StabilityResult.per_object_frame": lambda: predstab.StabilityResult.per_object_frame,
    "TuningResult.plot": lambda: predstab.TuningResult.plot,
    "StabilityResult.plot": lambda: predstab.StabilityResult.plot,
    "compare.FriedmanNemenyiResult.plot": lambda: predstab.compare.FriedmanNemenyiResult.plot,
    "compare.BonferroniDunnResult.plot": lambda: predstab.compare.BonferroniDunnResult.plot,
    "compare.FriedmanNemenyiResult.at_significance":
        lambda: predstab.compare.FriedmanNemenyiResult.at_significance,
}

# Data parameters: read and checked by the function's reader (tests/test_bad_input.py), so they
# need no declaration; a data parameter that has one (e.g. "array-like") is not listed here.
DATA = {
    "repeated_predictions": {"X", "y", "X_test"},
    "phi": {"predictions", "training_observations"},
    "psi": {"predictions", "prediction_space"},
    "calculate_phi": {"prediction_matrix", "training_observations"},
    "calculate_psi": {"prediction_matrix", "prediction_space"},
    **{name: {"ratings"} for name in (
        "agree", "kendall_w", "finn", "robinson_a", "mean_correlation", "mean_spearman", "maxwell_re",
        "rater_bias", "stuart_maxwell", "bhapkar", "fleiss_levin_paik",
        "iota", "inter_intra_reliability", "cohen_kappa",
        "light_kappa", "percent_agreement", "gwet_ac1", "brennan_prediger", "conger_kappa")},
    "cronbach_alpha": {"items"},
    "tune_num_learners": {"estimator", "X", "y", "X_test"},
    "TreePool.closed_form": {"n"},
    "TreePool.fit": {"X", "y", "X_test"},
    "DaskTreePool.fit": {"X", "y", "X_test"},
    "read_table": {"path"},
    "ratings_from_long": {"data"},
}

# Public functions and methods that get their declarations on other branches (compare, tuning
# engine, phi/psi, TreePool, StabilityResult). The merge empties this set: a name stays here only
# while it is undeclared (the registry test fails once a pending name is declared, so that it is
# moved to CALLS).
PENDING: set = set()

# Public classes whose methods are not functions of this registry: scikit-learn estimators validate
# their parameters in fit (scikit-learn's convention), warnings and named tuples have no options.
NOT_REGISTERED_CLASSES = {"RefitEnsemble", "ConfidenceInterval", "PredstabWarning", "PredstabDataWarning",
                          "PredstabDegenerateWarning", "PredstabUndefinedWarning",
                          "PredstabOrientationWarning"}


# Example results of every public result class: (label, class name, factory).
def _with_warnings_ignored(factory):
    def call():
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return factory()
    return call


RESULTS = [
    ("ICCResult", "ICCResult", lambda: predstab.icc(_RATINGS, model="twoway", type="agreement")),
    ("ICCResult(oneway)", "ICCResult", lambda: predstab.icc(_RATINGS)),
    ("ICCRemlResult", "ICCRemlResult", lambda: predstab.icc_reml(_INCOMPLETE)),
    ("FleissKappaResult", "FleissKappaResult", lambda: predstab.fleiss_kappa(_LABELS)),
    ("FleissKappaResult(detail)", "FleissKappaResult", lambda: predstab.fleiss_kappa(_LABELS, detail=True)),
    ("FleissKappaResult(exact)", "FleissKappaResult", lambda: predstab.fleiss_kappa(_LABELS, exact=True)),
    ("KrippendorffAlphaResult", "KrippendorffAlphaResult",
     lambda: predstab.krippendorff_alpha(_RATINGS, scale="interval")),
    # irrCAC's definitions of the same coefficients: the same result types, with the inference added
    ("FleissKappaResult(weights)", "FleissKappaResult",
     lambda: predstab.fleiss_kappa(_THREE_CATS, weights="quadratic")),
    ("KrippendorffAlphaResult(weights)", "KrippendorffAlphaResult",
     lambda: predstab.krippendorff_alpha(_THREE_CATS, weights="linear", confidence_level=0.9)),
    ("TwoPL", "TwoPL", _fit),
    ("TwoPL(failed)", "TwoPL", _with_warnings_ignored(lambda: predstab.fit_2pl([1, 2, 3], [0.5, 0.5, 0.5]))),
    ("SelectionStabilityResult", "SelectionStabilityResult",
     lambda: predstab.selection_stability(_RATINGS, fraction=0.5)),
    ("SelectionStabilityResult(class)", "SelectionStabilityResult",
     lambda: predstab.selection_stability(_LABELS, select_for="a")),
    ("ImportanceStabilityResult", "ImportanceStabilityResult",
     lambda: predstab.importance_stability(_RATINGS, fraction=0.5)),
    ("RepeatedPredictions", "RepeatedPredictions", _with_warnings_ignored(_repeated)),
    ("StabilityResult(metric)", "StabilityResult", lambda: predstab.phi(_RATINGS, _RATINGS[:, 0])),
    ("StabilityResult(classes)", "StabilityResult", lambda: predstab.psi(_LABELS, ["a", "b", "c", "a"])),
    ("StabilityResult(one object)", "StabilityResult",
     _with_warnings_ignored(lambda: predstab.phi(_RATINGS[:1], _RATINGS[:, 0]))),
    ("RepeatedPredictions(kfold)", "RepeatedPredictions",
     _with_warnings_ignored(lambda: _repeated(baseline="kfold", cv=3))),
    # class labels with missing out-of-bag predictions (None in an object array)
    ("RepeatedPredictions(classes)", "RepeatedPredictions", _with_warnings_ignored(lambda: _classes())),
    # agreement coefficients of irr and psych
    ("AgreeResult", "AgreeResult", lambda: predstab.agree(_THREE_CATS, tolerance=1)),
    ("AgreeResult(text)", "AgreeResult", _with_warnings_ignored(lambda: predstab.agree(_case("c_str_45x2")))),
    ("KendallWResult", "KendallWResult", lambda: predstab.kendall_w(_ORDINAL_MANY)),
    ("KendallWResult(correct)", "KendallWResult", lambda: predstab.kendall_w(_ORDINAL_MANY, correction=True)),
    ("FinnResult", "FinnResult", lambda: predstab.finn(_ORDINAL_MANY, n_categories=5)),
    ("FinnResult(twoway)", "FinnResult",
     lambda: predstab.finn(_ORDINAL_MANY, n_categories=5, model="twoway")),
    ("RobinsonAResult", "RobinsonAResult", lambda: predstab.robinson_a(_ORDINAL_MANY)),
    ("MeanCorrelationResult", "MeanCorrelationResult", lambda: predstab.mean_correlation(_IOTA[0])),
    ("MeanCorrelationResult(spearman)", "MeanCorrelationResult",
     lambda: predstab.mean_spearman(_ORDINAL_MANY, fisher=False)),
    ("MaxwellREResult", "MaxwellREResult", lambda: predstab.maxwell_re(_BINARY)),
    ("RaterBiasResult", "RaterBiasResult", lambda: predstab.rater_bias(_ORDINAL)),
    ("StuartMaxwellResult", "StuartMaxwellResult", lambda: predstab.stuart_maxwell(_ORDINAL)),
    ("BhapkarResult", "BhapkarResult", lambda: predstab.bhapkar(_ORDINAL)),
    ("FleissLevinPaikResult", "FleissLevinPaikResult",
     lambda: predstab.fleiss_levin_paik(_THREE_CATS[:, :2])),
    ("IotaResult", "IotaResult", lambda: predstab.iota(_IOTA)),
    ("IotaResult(nominal)", "IotaResult", lambda: predstab.iota(_case("in_30x3_v1"), scale="nominal")),
    ("IotaResult(standardized)", "IotaResult", lambda: predstab.iota(_IOTA, standardize=True)),
    ("InterIntraReliabilityResult", "InterIntraReliabilityResult",
     lambda: predstab.inter_intra_reliability(_REPEATED, n_raters=3)),
    ("CohenKappaResult", "CohenKappaResult", lambda: predstab.cohen_kappa(_BINARY)),
    ("CohenKappaResult(weighted)", "CohenKappaResult",
     lambda: predstab.cohen_kappa(_ORDINAL, weights="quadratic", confidence_level=0.9)),
    ("CohenKappaResult(raters)", "CohenKappaResult", lambda: predstab.cohen_kappa(_THREE_CATS)),
    ("LightKappaResult", "LightKappaResult", lambda: predstab.light_kappa(_THREE_CATS)),
    ("KappaSampleSizeResult", "KappaSampleSizeResult",
     lambda: predstab.kappa_sample_size(0.6, 0.4, rate1=0.3, rate2=0.4)),
    ("KappaSampleSizeResult(marginals)", "KappaSampleSizeResult",
     lambda: predstab.kappa_sample_size(0.6, 0.4, marginals=[0.2, 0.3, 0.5], two_sided=True)),
    # irrCAC's coefficients and psych::alpha
    ("AgreementCoefficientResult", "AgreementCoefficientResult", lambda: predstab.gwet_ac1(_THREE_CATS)),
    ("AgreementCoefficientResult(weighted)", "AgreementCoefficientResult",
     lambda: predstab.percent_agreement(_THREE_CATS, weights="quadratic")),
    ("AgreementCoefficientResult(counts)", "AgreementCoefficientResult",
     lambda: predstab.brennan_prediger(_CAT_COUNTS, counts=True)),
    ("AgreementCoefficientResult(conger)", "AgreementCoefficientResult",
     lambda: predstab.conger_kappa(_THREE_CATS)),
    ("CronbachAlphaResult", "CronbachAlphaResult", lambda: predstab.cronbach_alpha(_ITEMS)),
    ("CronbachAlphaResult(detail=False)", "CronbachAlphaResult",
     lambda: predstab.cronbach_alpha(_ITEMS, detail=False)),
    # tuning the number of learners and the tree pool's closed forms
    ("TuningResult", "TuningResult", _with_warnings_ignored(_tuning)),
    ("TuningResult(closed_form)", "TuningResult",
     _with_warnings_ignored(lambda: _tuning(method="closed_form", measures=("icc", "phi"), n_resamples=5))),
    ("Recommendation", "Recommendation",
     _with_warnings_ignored(lambda: _tuning().recommendations["icc"])),
    ("ClosedFormResult", "ClosedFormResult",
     lambda: _pool().closed_form([4, 8], n_resamples=5, random_state=0)),
    # predstab.compare (the example calls of tests/compare/_examples.py)
    ("McNemarResult", "compare.McNemarResult", lambda: _compare("mcnemar")),
    ("McNemarResult(Bowker)", "compare.McNemarResult",
     lambda: _compare("mcnemar", [[24, 10, 10], [5, 30, 7], [5, 14, 14]], method="asymptotic")),
    ("TestResult(ttest)", "compare.TestResult", lambda: _compare("ttest")),
    ("TestResult(F)", "compare.TestResult", lambda: _compare("cv5x2_ftest")),
    ("TestResult(corrected)", "compare.TestResult", lambda: _compare("corrected_resampled_ttest")),
    ("TestResult(permutation)", "compare.TestResult", lambda: _compare("mean_permutation_test")),
    ("WilcoxonResult", "compare.WilcoxonResult", _with_warnings_ignored(lambda: _compare("wilcoxon"))),
    ("PairedBootstrapResult", "compare.PairedBootstrapResult", lambda: _compare("paired_bootstrap")),
    ("BootstrapResult", "compare.BootstrapResult", lambda: _compare("bootstrap_ci")),
    ("FriedmanNemenyiResult", "compare.FriedmanNemenyiResult", lambda: _compare("friedman_nemenyi")),
    ("BonferroniDunnResult", "compare.BonferroniDunnResult", lambda: _compare("bonferroni_dunn")),
    ("FriedmanPosthocResult", "compare.FriedmanPosthocResult", lambda: _compare("friedman_posthoc")),
    ("WinRateResult", "compare.WinRateResult", lambda: _compare("win_rate_test")),
    ("GamesNeeded", "compare.GamesNeeded", lambda: _compare("games_needed")),
    ("MeanCI", "compare.MeanCI", lambda: _compare("mean_ci")),
    ("StratifiedBootstrapResult", "compare.StratifiedBootstrapResult",
     lambda: _compare("stratified_bootstrap_ci")),
    ("ProbabilityOfImprovement", "compare.ProbabilityOfImprovement",
     lambda: _compare("probability_of_improvement")),
    ("PerformanceProfileResult", "compare.PerformanceProfileResult",
     lambda: _compare("performance_profile_ci")),
    ("VarianceComponents", "compare.VarianceComponents", lambda: _compare("variance_components")),
]

# Public result classes converted on other branches (none left).
PENDING_RESULTS = set()
# Results that are curves (over forest sizes, over thresholds): to_frame() has one row per point
# (its axis attribute -> column, value, ci_low, ci_high), not the one row of a single-value result.
CURVE_RESULTS = {"ClosedFormResult": ("n_learners", "n_learners"),
                 "compare.PerformanceProfileResult": ("taus", "tau")}
# Public classes that are not results.
NOT_RESULTS = {"TreePool", "DaskTreePool", *NOT_REGISTERED_CLASSES}  # pools: estimators, not results
