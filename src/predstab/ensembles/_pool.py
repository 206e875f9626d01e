"""The tree-pool engine: fit one large bagging ensemble, build forests of any size from it.

The learners of a bagging-type ensemble (random forests, extra trees, bagging) are
independent and identically distributed given the training data: each is grown from its
own bootstrap sample and its own random feature draws. So ``R`` forests of ``n`` learners,
each refit with a new seed, have exactly the distribution of ``R`` disjoint groups of ``n``
learners taken from one pool of ``R * n`` fitted learners. :class:`TreePool` fits that pool
once, caches every learner's predictions (and its out-of-bag rows) and builds any forest by
aggregation. From the same cache it gives the stability curves in closed form.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np

from .._core._exceptions import PredstabWarning, warn_outside
from .._core._gate import check_fit_data
from .._core._html import HtmlDisplay
from .._core._progress import steps
from .._core._utils import check_count, check_rng, seeds_from
from .._core._validation import Interval, Options, check_param, validate_params
from ..stability._registry import MEASURES, measure_names
from . import _members
from ._closed_form import closed_form_bands, expected_disagreement
from ._closed_form_result import in_members
from ._forest import inbag_mask, is_bagging_ensemble, learner_predictions

__all__ = ["TreePool"]

_VOTING = ("soft", "hard")


class TreePool(HtmlDisplay):
    """A pool of fitted learners from which forests of any size are built by aggregation.

    The members of any other ensemble -- networks of a deep ensemble, bagged models of any base
    learner, independent MCMC runs, a saved objects x members matrix -- make a fitted pool
    through :meth:`from_predictions`, :meth:`from_members` or :meth:`from_fit_predict` (no
    estimator; the closed forms, forests and tuning are the same).

    Parameters
    ----------
    estimator : scikit-learn bagging-type ensemble
        ``RandomForest*``, ``ExtraTrees*`` or ``Bagging*`` of any base learner (anything with
        ``n_estimators`` and ``estimators_``). It is cloned; ``n_estimators`` is set to
        ``n_learners``. None in a pool built from its members' predictions.
    n_learners : int, default 1000
        Size of the pool. Forests of ``n`` learners can be built ``n_learners // n`` times
        without sharing a learner.
    voting : {"soft", "hard"}, default "soft"
        How classifier forests aggregate: "soft" averages the learners' class probabilities
        (scikit-learn's ``predict``), "hard" takes the majority vote (ranger and optRF; ties
        go to the first class in ``classes_``). Ignored for regression (mean).
    random_state : None, int or numpy.random.Generator
        Seeds the pool (one integer seed for the ensemble) and the closed forms' resampling.
    n_jobs : int or None
        Passed to the ensemble's ``n_jobs`` for fitting; threads over the trees for the
        prediction cache and over blocks of test objects for the metric closed forms.
    dtype : {"float64", "float32"}, default "float64"
        Storage of the per-learner predictions. "float32" halves the memory of the cache
        (for 10^6 test objects and 1,000 learners: 4 GB instead of 8 GB); the closed forms
        accumulate in float64 either way, and the bootstrap of their bands computes in
        float32 anyway.

    Attributes
    ----------
    test_predictions_ : ndarray of shape (n_test, n_learners) or (n_test, n_learners, n_classes)
        Each learner's prediction (regression) or class probabilities on ``X_test``.
    train_predictions_ : ndarray of shape (n_train, n_learners[, n_classes])
        The same on the training rows (for out-of-bag predictions).
    oob_ : ndarray of bool, shape (n_train, n_learners), or None
        True where a training row was out of the learner's bootstrap sample; None when the
        ensemble does not bootstrap (then no out-of-bag predictions exist).
    classes_ : ndarray or None
        Class labels of a classifier pool.
    y_train_ : ndarray of shape (n_train,)
    fit_seconds_ : float
        Wall time of fitting the pool.
    predict_seconds_ : float
        Wall time of caching the per-learner predictions on ``X_test``.
    seed_ : int
        The integer seed the ensemble was fitted with (the default closed forms' generator
        derives from it).

    Notes
    -----
    Closed forms (metric predictions). Let :math:`t_{ij}` be learner :math:`j`'s prediction
    at object :math:`i` (:math:`P` learners), :math:`\\mu_i` and :math:`\\sigma_i^2` their
    mean and variance (``ddof=1``). A forest of :math:`n` learners predicts the mean of
    :math:`n` independent draws, so its between-refit variance at object :math:`i` is
    :math:`\\sigma_i^2 / n` and

    .. math::

        W = \\frac{1}{N}\\sum_i \\sigma_i^2, \\qquad
        B = \\operatorname{var}_i(\\mu_i) - W / P, \\qquad
        \\mathrm{ICC}(1)(n) = \\frac{B}{B + W / n}

    (``B`` removes the pool's own sampling noise from the variance of the object means and
    is floored at 0: where the object means spread less than that noise, the estimate is below
    0, the curve is 0 at every ``n`` and :meth:`closed_form`'s ``single_icc`` gives the unfloored
    ICC(1) of one learner, ``irr::icc``'s oneway single value): a 2PL with :math:`p_1 = W / B`
    and :math:`p_2 = 1`. APS's metric
    :math:`D_o(n) = W / n`, so :math:`\\phi(n) = 1 - W / (n\\,\\operatorname{var}(y))` and
    :math:`\\psi(n) = 1 - W / (n D_e)` with the fixed out-of-bag baseline's :math:`D_e`.

    Out of bag (no ``X_test``), a forest of :math:`n` learners predicts row :math:`i` from
    the :math:`K_i \\sim \\mathrm{Binomial}(n, r_i)` learners that did not see it (:math:`r_i`
    its out-of-bag rate, about 0.37), so :math:`W / n` becomes the mean of
    :math:`\\sigma_i^2\\, E[1 / K_i \\mid K_i > 0]`.

    Classes: the forest's class at object :math:`i` is a random variable with probabilities
    :math:`\\pi_{ic}(n)`; two refits agree with probability :math:`a_i(n)` (:math:`= \\sum_c
    \\pi_{ic}^2`), and :math:`1 - a_i` is the expected pairwise disagreement :math:`D_{o,i}`
    of APS and of Fleiss' kappa (whose :math:`P_e = \\sum_c \\bar\\pi_c^2`). Up to half the
    pool (:math:`2n \\le P`) both are estimated without bias from pairs of disjoint forests
    of the pool itself: the pool method averaged over every way to cut the pool -- exactly
    (hypergeometric vote counts) for majority votes of two classes on test objects, else
    over random orderings of the learners (200 for up to 50 objects, fewer for more).
    Beyond half the pool no two disjoint forests exist and no unbiased estimator does. Majority
    votes of two classes on test objects are then estimated by empirical Bayes: the
    distribution of the vote shares over the objects is fitted to the per-object vote counts
    (a binomial mixture) and each object's agreement is its posterior mean (nearly unbiased,
    noisier; :mod:`predstab.ensembles._vote_mixture`). Otherwise the vote distribution is
    extrapolated from the pool's vote shares :math:`q_i` taken as exact --
    Normal(:math:`\\mu_i`, :math:`\\sigma_i^2 / n`) mean probabilities (soft voting), or 2,000
    simulated forests (more classes). Near a tied vote that overstates stability (a pool
    of 100 learners with vote shares 0.4 ... 0.6: kappa at 50 learners 0.39 for 0.31), so
    ``closed_form`` warns; use a pool of at least twice the largest ``n`` for classes.

    Bands (:meth:`closed_form` with ``n_resamples``; the functions of
    :mod:`predstab.ensembles._closed_form`) cover
    the **learners only**: the expected stability of forests of ``n`` learners on these test
    objects, grown on this training set, the randomness being the trees' (not new test
    objects, not new training sets). The learners are resampled with replacement; each
    resample's error is its closed form minus the exact value of the same estimator in that
    bootstrap world (the pool as the population: the plug-in curve for metric predictions,
    the disjoint-forest U-statistic over forests drawn with replacement for classes), and the
    band is the percentile interval of ``curve + errors``, containing the curve. Metric
    resampling is one matrix product of the per-learner predictions with the resampling
    counts, linear in the test objects.

    No single R function does this; the forests it builds have the distribution of the
    refits of optRF's ``opt_prediction`` (ranger), and :func:`predstab.tune_num_learners`
    checks its curves against refits; see benchmarks/bench_tuning.py.

    References
    ----------
    .. [1] Breiman, L. (2001). Random forests. Machine Learning 45, 5-32.
       https://doi.org/10.1023/A:1010933404324
    .. [2] Lange, T. M. et al. (2025). optRF: Optimising random forest stability by
       determining the optimal number of trees. BMC Bioinformatics 26, 95.
       https://doi.org/10.1186/s12859-025-06097-1

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> X, y = make_regression(60, 5, noise=10, random_state=0)
    >>> pool = TreePool(RandomForestRegressor(max_features=2), n_learners=200, random_state=0)
    >>> pool = pool.fit(X[:40], y[:40], X[40:])
    >>> pool.forests(50).shape          # 4 forests of 50 trees on the 20 test objects
    (20, 4)
    >>> curve = pool.closed_form([10, 50, 200], measure="icc").curve
    >>> bool(curve[0] < curve[1] < curve[2] <= 1)
    True
    """

    def __init__(self, estimator, *, n_learners=1000, voting="soft", random_state=None, n_jobs=None,
                 dtype="float64"):
        self.estimator = estimator
        self.dtype = dtype
        self.n_learners = n_learners
        self.voting = voting
        self.random_state = random_state
        self.n_jobs = n_jobs

    # -- pools of any ensemble's members (no estimator, nothing fitted; engine: _members) ------
    @classmethod
    def from_predictions(cls, predictions, *, oob=None, classes=None, voting="soft", random_state=None,
                         y=None, oob_predictions=None):
        """A fitted pool from the members' predictions: closed forms and forests of any ensemble.

        Parameters
        ----------
        predictions : array-like of shape (n_objects, n_members) or (n_objects, n_members, n_classes)
            Each member's prediction of each object, objects in rows: metric values, class labels
            (2-D; numbers are read as labels when ``classes`` is given), or class probabilities
            (3-D, summing to 1 over the classes). A DataFrame is read by its values.
        oob : array-like of bool, shape (n_objects, n_members), optional
            True where the member did not train on the object (out of bag / held out). Without
            ``oob_predictions`` it refers to the rows of ``predictions``, which are then
            predicted out of bag as :meth:`fit` without ``X_test`` does (each object by the
            members that did not see it; optRF's behaviour without test data), and psi's default
            baseline is the whole pool's out-of-bag prediction (:meth:`oob_baseline`). Missing
            predictions are allowed where it is False.
        classes : array-like, optional
            The class labels: of the last axis of probabilities (default ``0 ... n_classes - 1``),
            or the labels that a 2-D matrix holds (default its sorted distinct labels; give them
            to read numbers as labels, or to fix their order: ties go to the first).
        voting : {"soft", "hard"}, default "soft"
            How members' probabilities combine (as :class:`TreePool`). Class labels are one-hot
            votes, so both rules give the same forests; the pool then uses "hard", whose closed
            form beyond half the pool is exact Binomial votes.
        random_state : None, int or numpy.random.Generator
            The closed forms' default generator (``seed_``) and the tuning's resampling.
        y : array-like of shape (n_train,), optional
            The observed responses: phi's baseline (``y_train_``).
        oob_predictions : array-like, optional
            The members' predictions of the training rows (objects x members [x classes]) that
            ``oob`` refers to, when ``predictions`` are of test objects: then psi's baseline is
            their out-of-bag prediction, as for a pool fitted with ``X_test``.

        Returns
        -------
        TreePool
            Fitted: ``test_predictions_``, ``train_predictions_``, ``oob_``, ``classes_``,
            ``y_train_``, ``closed_form``, ``forests``, ``oob_baseline``; it is also what
            :func:`predstab.tune_num_learners` takes in place of an estimator. ``estimator`` and
            ``ensemble_`` are None (:meth:`extend` needs an estimator).

        Raises
        ------
        ValueError
            A shape, a missing or infinite value, probabilities outside [0, 1] or not summing to
            1, a label outside ``classes``, a mask of another shape; the message names the
            parameter and what it holds.

        Notes
        -----
        The members must be exchangeable: independent draws of one random procedure given the
        training data (different seeds of a network, bootstrap samples of a base learner,
        independent MCMC runs). Then ``R`` ensembles of ``n`` members are distributed as ``R``
        disjoint groups of the pool, and the closed forms of :class:`TreePool` hold. Snapshots of
        one training run (checkpoints, the epochs of one network, successive draws of one Markov
        chain) are not: they are dependent and ordered, the variance of their mean does not
        shrink as ``1 / n``, and the closed form does not apply.

        Fed the per-tree predictions of a fitted :class:`TreePool` (``test_predictions_``; with
        ``oob=pool.oob_`` for a pool fitted without ``X_test``), it gives the same closed forms,
        bands and forests (tests/ensembles/test_members.py checks this to 1e-12).

        Examples
        --------
        >>> import numpy as np
        >>> from predstab import TreePool
        >>> rng = np.random.default_rng(0)
        >>> truth = rng.normal(size=(50, 1))
        >>> members = truth + 0.5 * rng.normal(size=(50, 40))   # 40 members, 50 objects
        >>> pool = TreePool.from_predictions(members, random_state=0)
        >>> res = pool.closed_form([1, 5, 10], measure="icc")
        >>> bool(res.curve[0] < res.curve[1] < res.curve[2])
        True
        """
        return _members.from_predictions(cls, predictions, oob=oob, classes=classes, voting=voting,
                                         random_state=random_state, y=y, oob_predictions=oob_predictions)

    @classmethod
    def from_members(cls, members, X_test, *, X_oob=None, oob=None, y=None, classes=None, voting="soft",
                     response="auto", random_state=None, n_jobs=None):
        """A fitted pool from a list of fitted models (the members of any ensemble).

        Each member predicts ``X_test`` (and ``X_oob``); the predictions go to
        :meth:`from_predictions`, whose Notes say when the closed forms apply (exchangeable
        members: independent fits with different seeds or bootstrap samples).

        Parameters
        ----------
        members : sequence of fitted estimators
            At least 2, each with ``predict`` (and ``predict_proba`` and ``classes_`` for class
            probabilities).
        X_test : array-like of shape (n_test, n_features)
            The objects whose prediction stability is measured.
        X_oob : array-like of shape (n_train, n_features), optional
            Training rows, predicted by every member for psi's baseline; ``oob`` says which
            member did not train on which row.
        oob : array-like of bool, optional
            ``(n_train, n_members)`` with ``X_oob``; else ``(n_test, n_members)``: the rows of
            ``X_test`` are then training rows predicted out of bag (see :meth:`from_predictions`).
        y, classes, voting, random_state :
            As for :meth:`from_predictions`.
        response : {"auto", "predict", "predict_proba"}, default "auto"
            "auto": class probabilities when every member has ``predict_proba`` and ``classes_``
            (a classifier), else ``predict`` (values, or labels of classifiers without
            probabilities).
        n_jobs : int or None
            Threads over the members (joblib).

        Returns
        -------
        TreePool
            As :meth:`from_predictions`; ``predict_seconds_`` is the wall time of the predictions.

        Examples
        --------
        >>> from sklearn.datasets import make_regression
        >>> from sklearn.linear_model import SGDRegressor
        >>> from predstab import TreePool
        >>> X, y = make_regression(60, 3, noise=5, random_state=0)
        >>> fits = [SGDRegressor(random_state=s).fit(X[:40], y[:40]) for s in range(4)]  # seeds: the members
        >>> TreePool.from_members(fits, X[40:], y=y[:40]).test_predictions_.shape
        (20, 4)
        """
        return _members.from_members(cls, members, X_test, X_oob=X_oob, oob=oob, y=y, classes=classes,
                                     voting=voting, response=response, random_state=random_state,
                                     n_jobs=n_jobs)

    @classmethod
    def from_fit_predict(cls, fit_predict, n_members, *, classes=None, voting="soft", y=None,
                         random_state=None, n_jobs=None, progress=None):
        """A fitted pool of ``n_members`` members made by ``fit_predict(seed)`` (e.g. deep ensembles).

        Each member is one call ``fit_predict(seed)`` that trains a model with that integer seed
        and returns its predictions of the test objects; the seeds derive from ``random_state``.
        The calls run through the refit engine of :func:`predstab.repeated_predictions` (joblib,
        results placed by seed: the same pool whatever ``n_jobs``), and the predictions go to
        :meth:`from_predictions` (whose Notes say when the closed forms apply: the members must be
        independent draws -- different seeds -- not snapshots of one run).

        Parameters
        ----------
        fit_predict : callable
            ``fit_predict(seed) -> predictions``: array-like of shape (n_objects,) of values or
            class labels, or (n_objects, n_classes) of class probabilities. A PyTorch or Keras
            network fits here: seed it, train it, predict the test objects.
        n_members : int
            Members to make (at least 2).
        classes, voting, y :
            As for :meth:`from_predictions` (``classes``: the labels of the probabilities' columns).
        random_state : None, int or numpy.random.Generator
            The members' seeds (``seeds_``) and the pool's generator.
        n_jobs : int or None
            Parallel calls (joblib's ``n_jobs``; None follows :func:`joblib.parallel_config`).
        progress : callable, optional
            ``progress(done, total)`` as members finish.

        Returns
        -------
        TreePool
            As :meth:`from_predictions`, with ``seeds_`` (one per member, in column order) and
            ``fit_seconds_`` (the wall time of the calls).

        Examples
        --------
        >>> import numpy as np
        >>> from predstab import TreePool
        >>> X = np.linspace(0, 1, 30)[:, None]
        >>> def fit_predict(seed):
        ...     noise = np.random.default_rng(seed).normal(scale=0.1, size=30)
        ...     return X[:, 0] + noise
        >>> pool = TreePool.from_fit_predict(fit_predict, 8, random_state=0)
        >>> pool.test_predictions_.shape, len(pool.seeds_)
        ((30, 8), 8)
        """
        return _members.from_fit_predict(cls, fit_predict, n_members, classes=classes, voting=voting, y=y,
                                         random_state=random_state, n_jobs=n_jobs, progress=progress)

    # -- fitting ---------------------------------------------------------------------------
    @validate_params({"oob": ["boolean"], "progress": ["callable", Options((True,)), None]})
    def fit(self, X, y, X_test=None, *, oob=True, progress=None):
        """Fit the pool and cache every learner's predictions.

        Parameters
        ----------
        X : array-like of shape (n_train, n_features)
        y : array-like of shape (n_train,)
        X_test : array-like of shape (n_test, n_features), optional
            Objects whose prediction stability is measured. When omitted, the training rows
            are used with out-of-bag predictions (optRF's behaviour without test data).
        oob : bool, default True
            Also cache predictions on the training rows (needed for out-of-bag predictions
            and the out-of-bag baseline of psi).
        progress : True or callable, optional
            True: a progress bar on stderr, one line per step. A callable is called as
            ``progress(done, total)`` (with ``step="fitting the pool"`` / ``"predicting"``
            when it takes a ``step`` keyword), ``done`` counting up within each step: as the
            learners are fitted (``total = n_learners``; a forest -- ``RandomForest*``,
            ``ExtraTrees*`` -- is then fitted in up to 20 warm-started steps, which grows
            exactly the learners one call grows, as scikit-learn draws each tree's seed from
            ``random_state`` in order; other ensembles in one step), then as the learners'
            predictions are cached, in up to 20 chunks of learners per pass over the rows
            (``total = n_learners`` times the passes: training rows, test rows). The numbers
            are the same with and without it.

        Returns
        -------
        self
        """
        from sklearn.base import clone

        estimator, n_learners, voting, rng = _pool_iv(self.estimator, self.n_learners, self.voting,
                                                      self.random_state)
        check_param("dtype", self.dtype, [Options({"float64", "float32", np.float64, np.float32})])
        X, y, X_test = check_fit_data(X, y, X_test)
        y, model = np.asarray(y), clone(estimator)
        self.seed_ = int(seeds_from(rng, 1)[0])
        params = {"n_estimators": n_learners, "random_state": self.seed_}
        if "n_jobs" in model.get_params():
            params["n_jobs"] = self.n_jobs
        model.set_params(**params)
        self.rng_, self.voting_ = rng, voting
        report = steps(progress)
        try:
            self._fit(model, (X, y, X_test, oob), n_learners, report)
        finally:
            if report is not progress:  # the bar of progress=True is this call's own
                report.close()
        return self

    def _fit(self, model, data, n_learners, report):
        """Fit ``model`` on ``data`` = ``(X, y, X_test, oob)`` and cache its learners' predictions."""
        from sklearn.base import is_classifier

        X, y, X_test, oob = data
        start = time.perf_counter()
        _fit_in_steps(model, X, y, n_learners, report.callback("fitting the pool"))
        self.fit_seconds_ = time.perf_counter() - start
        self.is_classifier_ = bool(is_classifier(model))
        self.classes_ = np.asarray(model.classes_) if self.is_classifier_ else None
        self.y_train_, self.ensemble_ = y, model
        self.on_train_ = X_test is None
        self._data = data  # references, for extend()
        if X_test is not None:
            X_test = check_test_data(model, X_test)
        need_train = oob or X_test is None
        passes = int(need_train) + int(X_test is not None)
        tick = report.callback("predicting")

        def predicted(rows, done_before):
            ticks = None if tick is None else (lambda done, total: tick(done_before + done, passes * total))
            return learner_predictions(model, rows, dtype=self.dtype, n_jobs=self.n_jobs, progress=ticks)

        self.train_predictions_ = predicted(X, 0) if need_train else None
        start = time.perf_counter()
        self.test_predictions_ = (self.train_predictions_ if X_test is None
                                  else predicted(X_test, n_learners if need_train else 0))
        self.predict_seconds_ = time.perf_counter() - start
        self.oob_ = None
        if need_train:
            if is_bagging_ensemble(model):
                self.oob_ = ~inbag_mask(model, len(y)).T
        if X_test is None and self.oob_ is None:
            raise ValueError(
                "`X_test` is required when the ensemble does not bootstrap (no out-of-bag rows); "
                f"got X_test=None for {type(model).__name__}."
            )

    @validate_params({"n_learners": [Interval(Integral, 2, None)],
                      "progress": ["callable", Options((True,)), None]})
    def extend(self, n_learners, *, progress=None):
        """Add ``n_learners`` learners to the fitted pool, on the data it was fitted on.

        The new learners are fitted as one more ensemble, seeded from the pool's generator,
        so they are independent of the pool's (the pool stays a sample of i.i.d. learners);
        their predictions and out-of-bag rows are appended, and their learners join
        ``ensemble_``. Used to make a closed form more precise without refitting the pool.

        Parameters
        ----------
        n_learners : int
            Learners to add (at least 2).
        progress : True or callable, optional
            As for :meth:`fit`, for the added learners.

        Returns
        -------
        self
        """
        self._check_fitted()
        check_count(n_learners, "n_learners")
        if self.estimator is None:
            raise ValueError("`extend` refits the pool's estimator; this pool was built from its members' "
                             "predictions (from_predictions / from_members / from_fit_predict): build it "
                             "again with more members.")
        X, y, X_test, oob = self._data
        more = TreePool(self.estimator, n_learners=n_learners, voting=self.voting, random_state=self.rng_,
                        n_jobs=self.n_jobs, dtype=self.dtype).fit(X, y, X_test, oob=oob, progress=progress)

        def joined(mine, theirs):
            return None if mine is None else np.concatenate([mine, theirs], axis=1)

        self.train_predictions_ = joined(self.train_predictions_, more.train_predictions_)
        self.test_predictions_ = (self.train_predictions_ if X_test is None
                                  else joined(self.test_predictions_, more.test_predictions_))
        self.oob_ = joined(self.oob_, more.oob_)
        self.fit_seconds_ += more.fit_seconds_
        self.predict_seconds_ += more.predict_seconds_
        _join_ensembles(self.ensemble_, more.ensemble_)
        return self

    # -- what it shows: a short repr and an R-style block, from one list of items (as results) --
    def _scalar_items(self):
        return _members.pool_items(self)

    def __repr__(self):
        return "TreePool(" + ", ".join(f"{k}={v!r}" for k, v in self._scalar_items()) + ")"

    def __str__(self):
        return "\n".join([f" Pool of {'members' if self.estimator is None else 'trees'}", "",
                          *(f"  {k} = {v}" for k, v in self._scalar_items() if v is not None)])

    def _check_fitted(self):
        if not hasattr(self, "test_predictions_"):
            raise ValueError("This TreePool is not fitted yet; call `fit(X, y, X_test)` first.")

    # -- forests by aggregation ------------------------------------------------------------
    def _aggregate(self, learner_preds, mask, n, n_forests, voting):
        """Aggregate disjoint groups of n learners; ``mask`` (rows x learners) keeps OOB votes."""
        width = n * n_forests
        preds = learner_preds[:, :width]
        keep = None if mask is None else mask[:, :width].reshape(len(preds), n_forests, n)
        if not self.is_classifier_:
            groups = preds.reshape(len(preds), n_forests, n)
            if keep is None:
                return groups.mean(axis=2)
            counts = keep.sum(axis=2)
            sums = np.where(keep, groups, 0.0).sum(axis=2)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        n_classes = preds.shape[2]
        if voting == "hard":
            scores = np.eye(n_classes)[preds.argmax(axis=2)]
        elif voting == "soft":
            scores = preds
        else:
            raise ValueError(f"`voting` must be 'soft' or 'hard'; got {voting!r}.")
        groups = scores.reshape(len(preds), n_forests, n, n_classes)
        if keep is not None:
            groups = groups * keep[..., None]
        totals = groups.sum(axis=2)
        labels = self.classes_[totals.argmax(axis=2)].astype(object)
        if keep is not None:
            labels[keep.sum(axis=2) == 0] = None
        return labels

    @validate_params({"n": [Interval(Integral, 1, None)], "n_forests": [Interval(Integral, 1, None), None],
                      "on": [Options(("test", "oob"))], "voting": [Options(("soft", "hard")), None]})
    def forests(self, n, *, n_forests=None, on="test", voting=None):
        """Predictions of ``n_forests`` forests of ``n`` learners (disjoint groups of the pool).

        Parameters
        ----------
        n : int
            Learners per forest.
        n_forests : int, optional
            Number of forests; default ``n_learners // n``. Requires ``n * n_forests <= n_learners``.
        on : {"test", "oob"}, default "test"
            "test": predictions on ``X_test`` (or out-of-bag on the training rows when the
            pool was fitted without ``X_test``); "oob": out-of-bag predictions on the
            training rows (NaN / None where a row is in every learner's sample).
        voting : {"soft", "hard"}, optional
            Overrides the pool's voting for classifiers.

        Returns
        -------
        ndarray of shape (n_objects, n_forests)
            Objects in rows, forests in columns (float, or object labels for classifiers).
        """
        self._check_fitted()
        voting = self.voting_ if voting is None else voting
        n, n_forests = self._forests_iv(n, n_forests)
        if on == "test":
            mask = self.oob_ if self.on_train_ else None
            return self._aggregate(self.test_predictions_, mask, n, n_forests, voting)
        if on == "oob":
            if self.oob_ is None:
                raise ValueError(
                    "`on='oob'` needs out-of-bag rows: fit with oob=True and a bootstrapping ensemble."
                )
            return self._aggregate(self.train_predictions_, self.oob_, n, n_forests, voting)
        raise ValueError(f"`on` must be 'test' or 'oob'; got {on!r}.")

    def _forests_iv(self, n, n_forests):
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"`n` must be a positive integer number of learners; got {n!r}.")
        size = self.test_predictions_.shape[1]
        if n_forests is None:
            n_forests = size // n
        if not isinstance(n_forests, (int, np.integer)) or n_forests < 1 or n * n_forests > size:
            raise ValueError(
                f"`n_forests` x `n` must not exceed the pool size {size} (disjoint groups of learners); "
                f"got {n_forests!r} forests of {n}. Fit a pool of at least {n * max(int(n_forests or 2), 2)} "
                "learners or use method='refit'."
            )
        return int(n), int(n_forests)

    @validate_params({"voting": [Options(("soft", "hard")), None]})
    def oob_baseline(self, *, voting=None):
        """Out-of-bag predictions of the whole pool on the training rows (psi's fixed baseline).

        Returns
        -------
        ndarray of shape (n_train,)
            NaN / None for rows that are in every learner's bootstrap sample.
        """
        self._check_fitted()
        if self.oob_ is None:
            raise ValueError("No out-of-bag rows: fit with oob=True and a bootstrapping ensemble, or pass "
                             "`oob` to from_predictions / from_members.")
        size = self.train_predictions_.shape[1]
        return self._aggregate(self.train_predictions_, self.oob_, size, 1,
                               self.voting_ if voting is None else voting)[:, 0]

    # -- closed forms ----------------------------------------------------------------------
    def _closed_form_rng(self, random_state):
        """The generator of a closed form: ``random_state``, or one derived from the pool's own
        seed and size (so repeated calls with the default give the same numbers)."""
        if random_state is None:
            return np.random.default_rng([self.seed_, self.test_predictions_.shape[1]])
        return check_rng(random_state)

    @validate_params({
        "measure": [Options(measure_names("closed_form"))],
        "baseline": ["array-like", None],
        "voting": [Options(_VOTING), None],
        "n_resamples": [Interval(Integral, 0, None)],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "progress": ["callable", Options((True,)), None],
    }, renamed={"n_bootstrap": "n_resamples"})
    def closed_form(self, n, *, measure="icc", baseline=None, voting=None, n_resamples=0,
                    confidence_level=0.95, random_state=None, progress=None):
        """Expected stability of forests of ``n`` learners, in closed form from the pool, with
        its bootstrap-over-learners band.

        Parameters
        ----------
        n : int or array-like of int
            Forest sizes (any, also larger than the pool; for classes, above half the pool
            the curve is extrapolated, with a warning -- see the class Notes).
        measure : {"icc", "fleiss", "phi", "psi"}, default "icc"
            A measure with a closed form (``predstab.stability.measure_names("closed_form")``):
            "icc", ICC(1) of metric predictions (optRF's prediction stability for regression);
            "fleiss", Fleiss' kappa of class predictions (optRF's for classification); "phi" /
            "psi", APS's stability against ``baseline``.
        baseline : array-like, optional
            phi: the training observations (default ``y_train``); psi: the prediction space
            (default: the pool's out-of-bag predictions, a fixed baseline).
        voting : {"soft", "hard"}, optional
            Overrides the pool's voting for classifiers.
        n_resamples : int, default 0
            Bootstrap resamples of the learners for the band (percentile interval containing
            the curve, capped at 1, ICC(1)'s at 0 from below); 0: the curve alone (NaN band,
            no ``errors``). The band covers the learners only: these test objects, this
            training set. 200 is a good
            number for a band.
        confidence_level : float, default 0.95
        random_state : None, int or numpy.random.Generator
            The class closed forms' random orderings of the pool and the bootstrap's
            resampling. None: a generator derived from the pool's seed, so that two calls
            give the same numbers.
        progress : True or callable, optional
            True: a bar on stderr; or ``progress(done, total)`` (with ``step="bands"`` when it
            takes a ``step`` keyword) as the work advances: for metric predictions the
            objects done, for classes the resampled pools. The numbers are the same with and
            without it.

        Returns
        -------
        ClosedFormResult
            ``curve``, ``confidence_interval`` (``low`` / ``high`` arrays over ``n``), the
            bootstrap ``errors`` (n_resamples x len(n)) and the settings.

        Examples
        --------
        >>> from sklearn.datasets import make_regression
        >>> from sklearn.ensemble import RandomForestRegressor
        >>> X, y = make_regression(60, 5, noise=10, random_state=0)
        >>> pool = TreePool(RandomForestRegressor(max_features=2), n_learners=200, random_state=0)
        >>> res = pool.fit(X[:40], y[:40], X[40:]).closed_form([10, 50], n_resamples=50, random_state=1)
        >>> res == pool.closed_form([10, 50], n_resamples=50, random_state=1)
        True
        >>> bool(res.low[0] < res.curve[0] < res.high[0])
        True
        """
        self._check_fitted()
        n = np.atleast_1d(np.asarray(n, dtype=float))
        if np.any(n < 1) or not np.all(np.isfinite(n)):
            raise ValueError(f"`n` must contain positive numbers of learners; got {n.tolist()}.")
        voting = self.voting_ if voting is None else voting
        rng = self._closed_form_rng(random_state)
        preds, shift = _members.closed_form_units(self)
        d_e = self._closed_form_expected(measure, baseline, voting, shift)
        size = self.test_predictions_.shape[1]
        if self.is_classifier_ and np.any(2 * n > size):
            mixture = self.test_predictions_.shape[2] == 2 and voting == "hard" and not self.on_train_
            how = ("estimated from the vote counts by empirical Bayes, nearly unbiased but noisier than "
                   "up to half the pool" if mixture else
                   "the extrapolation from its vote shares overstates stability where votes are close")
            warn_outside(
                f"Class stability for n = {[int(v) for v in n[2 * n > size]]} learners is extrapolated: "
                f"the pool of {size} learners holds no two disjoint forests of that size, and {how}; fit a "
                f"pool of at least {int(2 * n.max())} learners.", PredstabWarning)
        report = steps(progress)
        try:
            return in_members(closed_form_bands(preds, self.oob_ if self.on_train_ else None, n,
                                                {measure: d_e}, classifier=self.is_classifier_, voting=voting,
                                                n_resamples=n_resamples, confidence_level=confidence_level,
                                                random_state=rng, n_jobs=self.n_jobs,
                                                progress=report.callback("bands"))[measure], self)
        finally:
            if report is not progress:  # the bar of progress=True is this call's own
                report.close()

    def _closed_form_expected(self, measure, baseline, voting, shift=0):
        """D_e of a measure with a baseline (phi / psi), in the units of the predictions times
        ``2**shift``; None for those whose D_e depends on n (icc / fleiss), which must match the
        pool's kind of predictions."""
        entry = MEASURES[measure]
        if entry.baseline is None:
            expected_kind = "metric" if "metric" in entry.scales else "classes"
            actual = "classes" if self.is_classifier_ else "metric"
            if expected_kind != actual:
                raise ValueError(
                    f"`measure`='{measure}' needs {expected_kind} predictions; this pool predicts {actual}."
                )
            return None
        if baseline is not None:
            values = np.asarray(baseline)
        elif entry.baseline == "training_observations":
            if self.y_train_ is None:
                raise ValueError(f"`measure`='{measure}' needs `baseline` (the training observations): this "
                                 "pool has none; pass `baseline`, or `y` to from_predictions.")
            values = self.y_train_
        else:  # "prediction_space": the pool's out-of-bag predictions
            if self.oob_ is None:
                raise ValueError(f"`measure`='{measure}' needs `baseline` (the prediction space): this pool "
                                 "has no out-of-bag rows; pass `baseline`, or `oob` to from_predictions.")
            values = self.oob_baseline(voting=voting)
        return expected_disagreement(values, classes=self.is_classifier_, shift=shift)


def check_test_data(model, X_test, *, name="X_test"):
    """``X_test`` validated as the fitted ensemble's own ``predict`` validates it.

    The per-learner cache calls each tree's ``tree_.predict`` directly, which checks
    nothing: with fewer columns it reads past the array, and a DataFrame with reordered
    columns gives other numbers. So the number of features (``n_features_in_``), the
    feature names (``feature_names_in_``), the dtype and the memory layout are checked and
    converted here by scikit-learn's own validation (the forest's ``_validate_X_predict``,
    float32 C-or-CSR, or ``validate_data(reset=False)`` for other ensembles), and its
    error is re-raised naming ``X_test``.
    """
    from sklearn.utils.validation import validate_data

    try:
        if hasattr(model, "_validate_X_predict"):  # forests: exactly what their predict() does
            return model._validate_X_predict(X_test)
        return validate_data(model, X_test, accept_sparse=["csr", "csc"], dtype=None,
                             ensure_all_finite=False, reset=False)
    except ValueError as exc:
        raise ValueError(f"`{name}` does not match the training data `X`: {exc}") from None


def _fit_in_steps(model, X, y, n_learners, progress, *, steps=20):
    """``model.fit(X, y)``; with ``progress``, a forest grows in warm-started steps that tick it."""
    from sklearn.ensemble import BaggingClassifier, BaggingRegressor

    # Bagging* keeps only the last warm start's sample seeds (_seeds): its out-of-bag rows would
    # be wrong, so it is fitted in one step
    if (progress is None or "warm_start" not in model.get_params() or model.get_params()["warm_start"]
            or isinstance(model, (BaggingClassifier, BaggingRegressor))):
        model.fit(X, y)
        if progress is not None:
            progress(n_learners, n_learners)
        return
    sizes = np.unique(np.linspace(0, n_learners, min(steps, n_learners) + 1).astype(int)[1:])
    model.set_params(warm_start=True)
    try:
        for size in sizes:
            model.set_params(n_estimators=int(size))
            model.fit(X, y)
            progress(int(size), n_learners)
    finally:
        model.set_params(warm_start=False)


def _join_ensembles(model, more):
    """Append ``more``'s fitted learners to ``model`` (same class, same data)."""
    model.estimators_ = list(model.estimators_) + list(more.estimators_)
    if getattr(model, "estimators_features_", None) is not None:  # Bagging*
        model.estimators_features_ = list(model.estimators_features_) + list(more.estimators_features_)
        # estimators_samples_ regenerates each learner's rows from these seeds
        model._seeds = np.concatenate([model._seeds, more._seeds])
    model.n_estimators = len(model.estimators_)


def _pool_iv(estimator, n_learners, voting, random_state):
    if not hasattr(estimator, "get_params") or "n_estimators" not in estimator.get_params():
        raise TypeError(
            "`estimator` must be a scikit-learn bagging-type ensemble with `n_estimators` "
            f"(RandomForest*, ExtraTrees*, Bagging*); got {type(estimator).__name__}."
        )
    check_count(n_learners, "n_learners")
    if voting not in _VOTING:
        raise ValueError(f"`voting` must be 'soft' or 'hard'; got {voting!r}.")
    return estimator, int(n_learners), voting, check_rng(random_state)
