"""Stability as a scikit-learn scorer, for ``GridSearchCV`` and ``cross_validate``."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, is_classifier
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ._core._exceptions import warnings_outside
from ._core._utils import check_rng, seeds_from
from ._core._validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    check_param,
    validate_params,
)
from .ensembles._forest import (
    aggregate,
    final_estimator,
    is_bagging_ensemble,
    through_pipeline,
    tree_predictions,
)
from .ensembles._repeated import with_seed
from .stability import MEASURES, measure_names

__all__ = ["make_stability_scorer", "RefitEnsemble"]

_SCALES = ("metric", "ordinal", "categorical")


@dataclass(frozen=True, eq=False, repr=False)
class _StabilityScorer:
    """Callable ``scorer(estimator, X, y) -> float``; built by :func:`make_stability_scorer`."""

    measure: str
    n_repeats: int
    scale: str | None
    categories: list | None
    training_observations: object
    prediction_space: object
    fit_data: tuple | None
    voting: str
    random_state: object
    options: dict

    def __repr__(self):
        return f"make_stability_scorer({self.measure!r}, n_repeats={self.n_repeats})"

    # the matrix of replicate predictions (objects x replicates) -----------------------
    def replicate_predictions(self, estimator, X):
        """``(matrix, how)``: predictions of ``n_repeats`` replicate models on ``X``."""
        final = final_estimator(estimator)  # the preprocessing runs only for a fitted final ensemble
        if isinstance(final, RefitEnsemble) and hasattr(final, "estimators_"):
            return final.replicate_predictions(through_pipeline(estimator, X)[1]), "ensemble"
        if is_bagging_ensemble(final) and hasattr(final, "estimators_"):
            Xt = through_pipeline(estimator, X)[1]
            per_tree = tree_predictions(final, Xt)
            n_learners = per_tree.shape[0]
            rng = check_rng(self.random_state)
            classes = final.classes_ if is_classifier(final) else None
            columns = []
            for _ in range(self.n_repeats):
                # a new forest of the same size: its trees drawn with replacement from the fitted ones
                pick = rng.integers(0, n_learners, size=n_learners)
                columns.append(aggregate(per_tree[pick], voting=self.voting, classes=classes))
            return np.column_stack(columns), "trees"
        if self.fit_data is None:
            name = type(final).__name__
            raise TypeError(
                f"make_stability_scorer: {name} is not a fitted bagging ensemble (RandomForest*, "
                "ExtraTrees* with bootstrap=True, Bagging*), so its stability needs refits, and a scorer "
                f"is not given the training data. Wrap it: predstab.RefitEnsemble({name}(...), "
                "n_repeats=5) fits its refits in fit, on each fold's own training rows, so the scorer "
                "works in cross_validate and grid searches. `fit_data=(X_train, y_train)` refits on one "
                "fixed training set (only outside cross-validation: it cannot change per fold)."
            )
        X_fit, y_fit = self.fit_data
        columns = []
        for seed in seeds_from(self.random_state, self.n_repeats):
            model = with_seed(estimator, seed)
            columns.append(np.asarray(model.fit(X_fit, y_fit).predict(X)))
        return np.column_stack(columns), "refits"

    def _scale_of(self, estimator):
        from sklearn.base import is_classifier

        if self.scale is not None:
            return self.scale
        if self.categories is not None:
            return "ordinal"
        return "categorical" if is_classifier(estimator) else "metric"

    def __call__(self, estimator, X, y=None, sample_weight=None):
        import joblib
        import sklearn

        # the measures' warnings point at the user's line (cross_validate(...), GridSearchCV.fit),
        # not into predstab, scikit-learn or joblib, which call the scorer
        with warnings_outside(also_skip=(sklearn, joblib)):
            return self._score(estimator, X, y)

    def _score(self, estimator, X, y):
        matrix, _ = self.replicate_predictions(estimator, X)
        scale = self._scale_of(estimator)
        measure = MEASURES[self.measure]
        if measure.baseline is None:  # a coefficient of the (objects x replicates) matrix alone
            return measure.value(matrix, scale=scale, categories=self.categories, **self.options)
        if measure.baseline == "training_observations":
            base = y if self.training_observations is None else self.training_observations
            if base is None:
                raise TypeError(f"make_stability_scorer({self.measure!r}): the scorer was called without "
                                "`y`; pass `training_observations=`.")
        else:  # "prediction_space": the fitted model's own out-of-sample predictions by default
            base = estimator.predict(X) if self.prediction_space is None else self.prediction_space
        base = np.asarray(base)
        if scale == "metric":
            matrix, base = matrix.astype(float), base.astype(float)
        elif matrix.dtype.kind != base.dtype.kind:
            matrix, base = matrix.astype(object), base.astype(object)
        return measure.value(matrix, base, scale=scale, categories=self.categories, **self.options)


def _make_stability_scorer_iv(measure, n_repeats, scale, categories, fit_data, voting, options):
    # the types and option sets are declared on make_stability_scorer; these are the checks of content
    if categories is not None:
        if np.ndim(categories) != 1:
            raise InvalidParameterError(
                f"`categories` must be a 1-D sequence of ordered categories; got {categories!r}.")
        categories = list(categories)
        if len(categories) < 2:
            raise InvalidParameterError(
                f"`categories` must list at least 2 ordered categories; got {categories!r}.")
    if fit_data is not None and len(fit_data) != 2:
        raise InvalidParameterError(
            f"`fit_data` must be a pair (X_train, y_train); got {len(fit_data)} items.")
    return int(n_repeats), categories, dict(options or {})


@validate_params({
    "measure": [Options(measure_names("scorer"))], "n_repeats": [Interval(Integral, 2, None)],
    "scale": [Options(_SCALES), None], "categories": [None, "array-like"],
    "training_observations": [None, "array-like"], "prediction_space": [None, "array-like"],
    "fit_data": [None, tuple, list], "voting": [Options(("soft", "hard"))], "random_state": ["random_state"],
    "options": [None, dict],
}, renamed={"levels": "categories"})
def make_stability_scorer(measure="psi", /, *, n_repeats=10, scale=None, categories=None,
                          training_observations=None, prediction_space=None, fit_data=None,
                          voting="soft", random_state=0, options=None):
    r"""A scikit-learn scorer that returns the prediction stability of a fitted model.

    Use it wherever scikit-learn takes ``scoring``, next to accuracy or R²:
    ``GridSearchCV(rf, grid, scoring={"r2": "r2", "psi": make_stability_scorer("psi")},
    refit="r2")``. Higher is more stable (at most 1), so larger is better, as scikit-learn
    expects.

    **Where the replicate predictions come from.** For a fitted bagging ensemble
    (``RandomForest*``, ``ExtraTrees*`` with ``bootstrap=True``, ``Bagging*``; also as the last
    step of a ``Pipeline``, nested or not) nothing is refit: each of ``n_repeats`` replicate
    forests is built from the fitted trees, drawn with replacement (as many as the forest has),
    and predicts by the forest's own rule (mean; soft voting, or ``voting="hard"`` for ranger's
    majority vote). The trees of a forest are independent draws given the training data, so this
    estimates how much a refit of the same forest would change its predictions, at the cost of one
    :func:`~predstab.ensembles._forest.tree_predictions` call. A fitted :class:`RefitEnsemble` hands over
    the predictions of its seeded refits (made on the training fold during the search's own
    fit). Any other estimator is refit ``n_repeats`` times with new integer seeds (every
    ``random_state`` parameter, also inside pipelines) on ``fit_data=(X_train, y_train)``,
    which is required because scorers are not given the training data.

    **What the expected disagreement D_e uses** (APS's :math:`S = 1 - D_o / D_e`):

    - ``"phi"`` (data-based): scikit-learn passes a scorer only the scored fold's ``X`` and
      ``y``, never the training responses. By default D_e is computed from that ``y`` — the
      held-out responses, drawn from the same population as the training responses, so on
      average the same D_e. Pass ``training_observations=y_train`` to use the training responses
      exactly as :func:`predstab.phi` does.
    - ``"psi"`` (model-based): by default D_e is computed from the fitted model's own predictions
      of the scored objects (which it did not see in training: out-of-sample predictions, as ψ
      requires). Pass ``prediction_space=`` (e.g. out-of-bag predictions of the training objects)
      to fix it.
    - ``"icc"``, ``"fleiss"``, ``"alpha"``: no baseline; the coefficient of the
      (objects × replicates) matrix, as optRF uses ICC(1) and Fleiss' κ.

    Parameters
    ----------
    measure : {"psi", "phi", "icc", "fleiss", "alpha"}, default "psi"
        A measure of the registry (``predstab.stability.measure_names("scorer")``).
    n_repeats : int, default 10
        Number of replicate models (columns of the prediction matrix).
    scale : {"metric", "ordinal", "categorical"}, optional
        Default: "metric" for regressors, "categorical" for classifiers ("ordinal" when
        ``categories`` is given). Krippendorff's α uses interval / ordinal / nominal accordingly.
    categories : sequence, optional
        Ordered categories for the ordinal scale (renamed from ``levels`` in 0.2.0).
    training_observations : array-like of shape (n_train,), optional
        Baseline of ``"phi"`` (see above).
    prediction_space : array-like of shape (n_train,) or (n_train, n_repeats), optional
        Baseline of ``"psi"`` (see above).
    fit_data : tuple (X_train, y_train), optional
        Training data for the refits of estimators that are not bagging ensembles.
    voting : {"soft", "hard"}, default "soft"
        How replicate forests of a classifier vote: ``"soft"`` is scikit-learn's rule (what the
        fitted forest's ``predict`` does; predstab's default everywhere, as in
        :func:`repeated_predictions`), ``"hard"`` ranger's majority vote (optRF, APS).
    random_state : None, int or numpy.random.Generator, default 0
        Draws the trees (or the refit seeds); fixed by default so that every candidate of a
        search is scored with the same randomness.
    options : dict, optional
        Keyword arguments passed to the measure (e.g. ``{"model": "twoway"}`` for
        :func:`predstab.icc`).

    Returns
    -------
    callable
        ``scorer(estimator, X, y)`` returning a float (NaN when the measure is undefined, with
        :class:`~predstab.PredstabUndefinedWarning`).

    References
    ----------
    Lange, Schmitt & Heinrich (2025), "Prediction stability of non-deterministic models",
    BMC Bioinformatics, doi:10.1186/s12859-025-06097-1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> from sklearn.model_selection import cross_validate
    >>> from predstab import make_stability_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 4)); y = X[:, 0] + rng.normal(size=120)
    >>> rf = RandomForestRegressor(n_estimators=30, random_state=0)
    >>> cv = cross_validate(rf, X, y, cv=3,
    ...                     scoring={"r2": "r2", "phi": make_stability_scorer("phi")})
    >>> bool(np.all((cv["test_phi"] > 0.5) & (cv["test_phi"] <= 1)))
    True
    """
    n_repeats, categories, options = _make_stability_scorer_iv(measure, n_repeats, scale, categories,
                                                               fit_data, voting, options)
    return _StabilityScorer(measure, n_repeats=n_repeats, scale=scale, categories=categories,
                            training_observations=training_observations, prediction_space=prediction_space,
                            fit_data=fit_data, voting=voting, random_state=random_state, options=options)


# ----------------------------------------------------------------------------- meta-estimator


def _inner_has(attribute):
    def check(self):
        inner = self.estimators_[0] if hasattr(self, "estimators_") else self._inner()
        return hasattr(inner, attribute)

    return check


class RefitEnsemble(MetaEstimatorMixin, BaseEstimator):
    """An estimator refit ``n_repeats`` times with new seeds, predicting by consensus.

    Fitting trains ``n_repeats`` clones of ``estimator``, each with every ``random_state``
    (also nested) set to its own integer seed derived from ``random_state``. ``predict``
    returns the mean (regression) or the majority class (classification; ties go to the first
    class in ``classes_``); :meth:`replicate_predictions` returns every clone's prediction as
    an (objects × replicates) matrix. :func:`make_stability_scorer` uses that matrix, so
    wrapping a model that is not a bagging ensemble (gradient boosting with subsampling, an
    MLP) lets a grid search score its stability without ``fit_data``: the refits happen inside
    the search's own fit, on each training fold.

    Parameters
    ----------
    estimator : scikit-learn estimator, default DecisionTreeRegressor()
        The model to refit (unfitted).
    n_repeats : int, default 5
        Number of refits.
    random_state : None, int or numpy.random.Generator
        Source of the refits' seeds.

    Attributes
    ----------
    estimators_ : list of fitted estimators
    seeds_ : ndarray of int64, shape (n_repeats,)
    classes_ : ndarray (classifiers only)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.ensemble import GradientBoostingRegressor
    >>> from predstab import RefitEnsemble
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3)); y = X[:, 0] + rng.normal(size=80)
    >>> model = RefitEnsemble(GradientBoostingRegressor(n_estimators=20, subsample=0.5), n_repeats=4,
    ...                       random_state=0).fit(X, y)
    >>> model.replicate_predictions(X[:5]).shape
    (5, 4)
    """

    def __init__(self, estimator=None, *, n_repeats=5, random_state=None):
        self.estimator = estimator
        self.n_repeats = n_repeats
        self.random_state = random_state

    def _inner(self):
        if self.estimator is None:
            from sklearn.tree import DecisionTreeRegressor

            return DecisionTreeRegressor()
        return self.estimator

    def __sklearn_tags__(self):
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()
        inner = get_tags(self._inner())
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        if tags.classifier_tags is not None:
            tags.classifier_tags.multi_label = False
        tags.target_tags.required = True
        tags.target_tags.multi_output = False
        return tags

    def _is_classifier(self):
        from sklearn.base import is_classifier

        return is_classifier(self._inner())

    def fit(self, X, y, **fit_params):
        """Fit ``n_repeats`` seeded clones of ``estimator`` on ``(X, y)``.

        Returns
        -------
        self
        """
        # scikit-learn's convention: an estimator's parameters are checked in fit, with the declarations'
        # constraints and messages
        check_param("estimator", self.estimator, [None, HasMethods(["fit", "predict"])])
        check_param("n_repeats", self.n_repeats, [Interval(Integral, 1, None)])
        check_param("random_state", self.random_state, ["random_state"])
        X, y = validate_data(self, X, y)
        if self._is_classifier():
            check_classification_targets(y)
            self.classes_ = np.unique(y)
        self.seeds_ = seeds_from(self.random_state, self.n_repeats)
        self.estimators_ = [with_seed(self._inner(), seed).fit(X, y, **fit_params) for seed in self.seeds_]
        return self

    def replicate_predictions(self, X):
        """Every refit's prediction: an array of shape (n_objects, n_repeats)."""
        from sklearn.utils.validation import check_is_fitted, validate_data

        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.column_stack([est.predict(X) for est in self.estimators_])

    def predict(self, X):
        """Mean of the refits (regression) or their majority class (classification)."""
        matrix = self.replicate_predictions(X)
        if not self._is_classifier():
            return matrix.mean(axis=1)
        codes = np.searchsorted(self.classes_, matrix)
        n_classes = len(self.classes_)
        # votes per (object, class) in one bincount over row offsets
        flat = (np.arange(len(codes))[:, None] * n_classes + codes).ravel()
        votes = np.bincount(flat, minlength=len(codes) * n_classes).reshape(len(codes), n_classes)
        return self.classes_[votes.argmax(axis=1)]

    def score(self, X, y, sample_weight=None):
        """Accuracy (classifiers) or R² (regressors) of :meth:`predict`, as scikit-learn's mixins."""
        from sklearn.metrics import accuracy_score, r2_score

        metric = accuracy_score if self._is_classifier() else r2_score
        return float(metric(y, self.predict(X), sample_weight=sample_weight))

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        """Mean class probabilities of the refits (classifiers with ``predict_proba``)."""
        from sklearn.utils.validation import check_is_fitted, validate_data

        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.mean([est.predict_proba(X) for est in self.estimators_], axis=0)
