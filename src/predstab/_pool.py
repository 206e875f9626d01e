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

import functools
import warnings

import numpy as np
from scipy import stats

from ._exceptions import PredstabWarning
from ._forest import inbag_mask, is_bagging_ensemble, tree_predictions
from ._utils import check_count, check_rng, seeds_from

__all__ = ["TreePool"]

_VOTING = ("soft", "hard")


def _learner_predictions(ensemble, X):
    """Object-major per-learner predictions: (n_rows, n_learners[, n_classes])."""
    learners = ensemble.estimators_
    if getattr(ensemble, "estimators_features_", None) is None and all(hasattr(e, "tree_") for e in learners):
        # forests: one apply() and a leaf-value lookup per tree, about 5x faster than a
        # predict() per tree (which validates the input each time); tree_.value holds the
        # leaf means (regression) or class fractions (classification), as predict uses them
        leaves = ensemble.apply(X)
        if hasattr(ensemble, "classes_"):
            return np.stack([e.tree_.value[leaves[:, j], 0, :] for j, e in enumerate(learners)], axis=1)
        return np.stack([e.tree_.value[leaves[:, j], 0, 0] for j, e in enumerate(learners)], axis=1)
    return np.moveaxis(tree_predictions(ensemble, X), 0, 1)


def tree_permutation_importances(ensemble, X, y, rng):
    """Each tree's out-of-bag permutation importance (ranger's ``importance="permutation"``).

    For tree ``t`` with out-of-bag rows ``O_t``: the increase of its error on ``O_t`` (mean
    squared error; misclassification rate for classifiers) when variable ``j``'s values are
    permuted among ``O_t``. Variables the tree never splits on get 0 without being permuted
    (permuting them cannot change the tree's predictions). ranger's forest importance is the
    mean over its trees (unscaled, ranger's default).

    Returns
    -------
    ndarray of shape (n_features, n_trees)
    """
    learners = ensemble.estimators_
    trees = all(hasattr(e, "tree_") for e in learners)
    if getattr(ensemble, "estimators_features_", None) is not None or not trees:
        raise ValueError(
            "permutation importance is implemented for RandomForest* / ExtraTrees*; got "
            f"{type(ensemble).__name__}. Use importance='impurity'."
        )
    X = np.ascontiguousarray(X, dtype=np.float32)
    y = np.asarray(y)
    classes = getattr(ensemble, "classes_", None)
    target = np.searchsorted(classes, y).astype(float) if classes is not None else y.astype(float)
    oob = ~inbag_mask(ensemble, len(y))
    out = np.zeros((X.shape[1], len(learners)))
    for t, tree in enumerate(learners):
        rows = np.flatnonzero(oob[t])
        if rows.size < 2:
            continue
        xo, yo = X[rows], target[rows]

        def error(data, tree=tree, yo=yo):
            pred = tree.predict(data, check_input=False)
            return float(np.mean(pred != yo)) if classes is not None else float(np.mean((pred - yo) ** 2))

        base = error(xo)
        used = np.unique(tree.tree_.feature[tree.tree_.feature >= 0])
        for j in used:
            original = xo[:, j].copy()
            xo[:, j] = original[rng.permutation(rows.size)]
            out[j, t] = error(xo) - base
            xo[:, j] = original
    return out


class TreePool:
    """A pool of fitted learners from which forests of any size are built by aggregation.

    Parameters
    ----------
    estimator : scikit-learn bagging-type ensemble
        ``RandomForest*``, ``ExtraTrees*`` or ``Bagging*`` (anything with ``n_estimators``
        and ``estimators_``). It is cloned; ``n_estimators`` is set to ``n_learners``.
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
        Passed to the ensemble's ``n_jobs`` for fitting.

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
    is floored at 0): a 2PL with :math:`p_1 = W / B` and :math:`p_2 = 1`. APS's metric
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
    Beyond half the pool no two disjoint forests exist, and the vote distribution is
    extrapolated from the pool's vote shares :math:`q_i` taken as exact --
    Binomial(:math:`n`, :math:`q_i`) votes (hard voting, two classes),
    Normal(:math:`\\mu_i`, :math:`\\sigma_i^2 / n`) mean probabilities (soft voting), or 2,000
    simulated forests (more classes). Near a tied vote that overstates stability (a pool
    of 100 learners with vote shares 0.4 ... 0.6: kappa at 50 learners 0.39 for 0.31), so
    ``closed_form`` warns; use a pool of at least twice the largest ``n`` for classes.

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
    >>> curve = pool.closed_form([10, 50, 200], measure="icc")
    >>> bool(curve[0] < curve[1] < curve[2] <= 1)
    True
    """

    def __init__(self, estimator, *, n_learners=1000, voting="soft", random_state=None, n_jobs=None):
        self.estimator = estimator
        self.n_learners = n_learners
        self.voting = voting
        self.random_state = random_state
        self.n_jobs = n_jobs

    # -- fitting ---------------------------------------------------------------------------
    def fit(self, X, y, X_test=None, *, oob=True):
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

        Returns
        -------
        self
        """
        import time

        from sklearn.base import clone, is_classifier

        estimator, n_learners, voting, rng = _pool_iv(self.estimator, self.n_learners, self.voting,
                                                      self.random_state)
        y = np.asarray(y)
        model = clone(estimator)
        params = {"n_estimators": n_learners, "random_state": int(seeds_from(rng, 1)[0])}
        if "n_jobs" in model.get_params():
            params["n_jobs"] = self.n_jobs
        model.set_params(**params)
        start = time.perf_counter()
        model.fit(X, y)
        self.fit_seconds_ = time.perf_counter() - start
        self.is_classifier_ = bool(is_classifier(model))
        self.classes_ = np.asarray(model.classes_) if self.is_classifier_ else None
        self.y_train_ = y
        self.rng_ = rng
        self.voting_ = voting
        self.ensemble_ = model
        self.on_train_ = X_test is None
        self._data = (X, y, X_test, oob)  # references, for extend()
        need_train = oob or X_test is None
        self.train_predictions_ = (_learner_predictions(model, X)
                                   if need_train else None)
        self.test_predictions_ = (self.train_predictions_ if X_test is None
                                  else _learner_predictions(model, X_test))
        self.oob_ = None
        if need_train:
            if is_bagging_ensemble(model):
                self.oob_ = ~inbag_mask(model, len(y)).T
        if X_test is None and self.oob_ is None:
            raise ValueError(
                "`X_test` is required when the ensemble does not bootstrap (no out-of-bag rows); "
                f"got X_test=None for {type(model).__name__}."
            )
        return self

    def extend(self, n_learners):
        """Add ``n_learners`` learners to the fitted pool, on the data it was fitted on.

        The new learners are fitted as one more ensemble, seeded from the pool's generator,
        so they are independent of the pool's (the pool stays a sample of i.i.d. learners);
        their predictions and out-of-bag rows are appended, and their learners join
        ``ensemble_``. Used to make a closed form more precise without refitting the pool.

        Parameters
        ----------
        n_learners : int
            Learners to add (at least 2).

        Returns
        -------
        self
        """
        self._check_fitted()
        check_count(n_learners, "n_learners")
        X, y, X_test, oob = self._data
        more = TreePool(self.estimator, n_learners=n_learners, voting=self.voting, random_state=self.rng_,
                        n_jobs=self.n_jobs).fit(X, y, X_test, oob=oob)

        def joined(mine, theirs):
            return None if mine is None else np.concatenate([mine, theirs], axis=1)

        self.train_predictions_ = joined(self.train_predictions_, more.train_predictions_)
        self.test_predictions_ = (self.train_predictions_ if X_test is None
                                  else joined(self.test_predictions_, more.test_predictions_))
        self.oob_ = joined(self.oob_, more.oob_)
        self.fit_seconds_ += more.fit_seconds_
        _join_ensembles(self.ensemble_, more.ensemble_)
        return self

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

    def oob_baseline(self, *, voting=None):
        """Out-of-bag predictions of the whole pool on the training rows (psi's fixed baseline).

        Returns
        -------
        ndarray of shape (n_train,)
            NaN / None for rows that are in every learner's bootstrap sample.
        """
        self._check_fitted()
        if self.oob_ is None:
            raise ValueError("No out-of-bag rows: fit with oob=True and a bootstrapping ensemble.")
        size = self.train_predictions_.shape[1]
        return self._aggregate(self.train_predictions_, self.oob_, size, 1,
                               self.voting_ if voting is None else voting)[:, 0]

    # -- closed forms ----------------------------------------------------------------------
    def closed_form(self, n, *, measure="icc", baseline=None, voting=None, n_bootstrap=0,
                    conf_level=0.95):
        """Expected stability of forests of ``n`` learners, in closed form from the pool.

        Parameters
        ----------
        n : int or array-like of int
            Forest sizes (any, also larger than the pool; for classes, above half the pool
            the curve is extrapolated, with a warning -- see the class Notes).
        measure : {"icc", "fleiss", "phi", "psi"}, default "icc"
            "icc": ICC(1) of metric predictions (optRF's prediction stability for
            regression); "fleiss": Fleiss' kappa of class predictions (optRF's for
            classification); "phi" / "psi": APS's stability against ``baseline``.
        baseline : array-like, optional
            phi: the training observations (default ``y_train``); psi: the prediction space
            (default: the pool's out-of-bag predictions, a fixed baseline).
        voting : {"soft", "hard"}, optional
            Overrides the pool's voting for classifiers.
        n_bootstrap : int, default 0
            If > 0, also return a bootstrap-over-learners confidence band (learners
            resampled with replacement; basic bootstrap interval, capped at 1).
        conf_level : float, default 0.95

        Returns
        -------
        ndarray of shape (len(n),)
            The curve; with ``n_bootstrap > 0`` a tuple ``(curve, low, high)``.
        """
        bands = self._closed_form_bands(n, (measure,), baselines={measure: baseline}, voting=voting,
                                        n_bootstrap=n_bootstrap, conf_level=conf_level)
        curve, low, high, _ = bands[measure]
        return (curve, low, high) if n_bootstrap else curve

    def _closed_form_bands(self, n, measures, *, baselines=None, voting=None, n_bootstrap=0,
                           conf_level=0.95):
        """``{measure: (curve, low, high, errors)}``; the measures share the resampled pools.

        ``low``, ``high`` and ``errors`` are None without ``n_bootstrap``.
        """
        self._check_fitted()
        n = np.atleast_1d(np.asarray(n, dtype=float))
        if np.any(n < 1) or not np.all(np.isfinite(n)):
            raise ValueError(f"`n` must contain positive numbers of learners; got {n.tolist()}.")
        if n_bootstrap and not 0 < conf_level < 1:
            raise ValueError(f"`conf_level` must be in (0, 1); got {conf_level!r}.")
        voting = self.voting_ if voting is None else voting
        baselines = baselines or {}
        d_e = {m: self._closed_form_expected(m, baselines.get(m), voting) for m in measures}
        size = self.test_predictions_.shape[1]
        if self.is_classifier_ and np.any(2 * n > size):
            warnings.warn(
                f"Class stability for n = {[int(v) for v in n[2 * n > size]]} learners is extrapolated: "
                f"the pool of {size} learners holds no two disjoint forests of that size, and the "
                "extrapolation from its vote shares overstates stability where votes are close; fit a "
                f"pool of at least {int(2 * n.max())} learners.",
                PredstabWarning, stacklevel=3,
            )
        curves, errors = self._closed_form_errors(n, d_e, voting, n_bootstrap)
        out = {}
        for m in measures:
            if not n_bootstrap:
                out[m] = (curves[m], None, None, None)
                continue
            alpha = (1 - conf_level) / 2
            q_low, q_high = np.nanquantile(errors[m], [alpha, 1 - alpha], axis=0)
            # basic (pivotal) interval: the error of a resampled curve about the curve of its
            # population (the pool) stands in for the error of the curve about the truth
            out[m] = (curves[m], np.clip(curves[m] - q_high, -np.inf, 1.0),
                      np.clip(curves[m] - q_low, -np.inf, 1.0), errors[m])
        return out

    def _closed_form_errors(self, n, d_e, voting, n_bootstrap):
        """Closed-form curves (``{measure: curve}`` for the measures of ``d_e``) and
        ``n_bootstrap`` bootstrap errors of each (rows; None for 0).

        Errors are those of closed forms from resampled pools about the closed form of the
        pool itself. The learners are resampled with replacement; the population of that
        bootstrap world is the pool, whose exact curve is the plug-in one (no correction for
        the noise of a finite pool: its learners *are* the population). The ICC's estimate
        subtracts that noise from the between-object variance, so the resampled estimates
        centre on the plug-in curve, not on the estimate: pivoting on the estimate instead
        would shift the band by the pool's noise (for ICC(1) at 250 trees from 1,000
        SNP-data trees, 0.06 -- the bands then covered the expected ICC in 57-70 % of pools,
        not 95 %). Every measure is computed from the same resampled pools.
        """
        preds = self.test_predictions_
        mask = self.oob_ if self.on_train_ else None

        def curves_of(stats):
            return {m: self._curve_from_stats(stats, n, m, value) for m, value in d_e.items()}

        curves = curves_of(self._closed_stats(preds, mask, n, voting, self.rng_))
        if not n_bootstrap:
            return curves, {m: None for m in d_e}
        size = preds.shape[1]
        population = curves_of(self._closed_stats(preds, mask, n, voting, self.rng_, plug_in=True))
        errors = {m: np.empty((int(n_bootstrap), len(n))) for m in d_e}
        for b in range(int(n_bootstrap)):
            cols = self.rng_.integers(0, size, size)
            # classes: an eighth of the orderings per resampled pool (their Monte Carlo noise
            # widens the band a little; all of them would make the bootstrap slow)
            stats = self._closed_stats(preds[:, cols], None if mask is None else mask[:, cols], n, voting,
                                       self.rng_, n_perm=max(5, _orderings(len(preds)) // 8))
            resampled = curves_of(stats)
            for m in d_e:
                errors[m][b] = resampled[m] - population[m]
        return curves, errors

    def _closed_form_expected(self, measure, baseline, voting):
        """D_e for phi / psi (None for icc / fleiss, whose D_e depends on n)."""
        if measure in ("icc", "fleiss"):
            expected_kind = "metric" if measure == "icc" else "classes"
            actual = "classes" if self.is_classifier_ else "metric"
            if expected_kind != actual:
                raise ValueError(
                    f"`measure`='{measure}' needs {expected_kind} predictions; this pool predicts {actual}."
                )
            return None
        if measure == "phi":
            values = self.y_train_ if baseline is None else np.asarray(baseline)
        elif measure == "psi":
            values = self.oob_baseline(voting=voting) if baseline is None else np.asarray(baseline)
        else:
            raise ValueError(f"`measure` must be 'icc', 'fleiss', 'phi' or 'psi'; got {measure!r}.")
        values = np.asarray(values).ravel()
        if self.is_classifier_:
            values = values[np.array([v is not None and v == v for v in values], dtype=bool)]
            _, counts = np.unique(values.astype(str), return_counts=True)
            share = counts / counts.sum()
            return 1.0 - float(np.sum(share**2))
        values = values.astype(float)
        values = values[~np.isnan(values)]
        return float(np.var(values, ddof=1)) if np.ptp(values) > 0 else 0.0

    def _closed_stats(self, preds, mask, n, voting, rng, plug_in=False, n_perm=None):
        """What every closed-form measure is computed from: per forest size, the expected
        observed disagreement ``d_o`` and the between-object variance ``b`` (metric) or the
        class shares ``share`` (classes). ``plug_in``: of the pool as the population (see
        ``_closed_form_errors``)."""
        if not self.is_classifier_:
            if mask is None:
                mu = preds.mean(axis=1)
                var = preds.var(axis=1, ddof=1)
                size = np.full(len(preds), preds.shape[1], dtype=float)
            else:
                size = mask.sum(axis=1).astype(float)
                with np.errstate(invalid="ignore", divide="ignore"):
                    mu = np.where(mask, preds, 0).sum(axis=1) / size
                    var = np.where(mask, (preds - mu[:, None]) ** 2, 0).sum(axis=1) / (size - 1)
                ok = size > 1
                mu, var, size = mu[ok], var[ok], size[ok]
            # the between-refit variance of a forest's prediction at object i: var_i / n, or,
            # out of bag, var_i * E[1 / K_i | K_i > 0] with K_i ~ Binomial(n, oob rate of i)
            # the trees of the forest that vote for row i
            within = (var[None, :] / n[:, None] if mask is None
                      else var[None, :] * _mean_inverse_count(n, size / preds.shape[1]))
            # the pool's means carry noise of variance var / size: subtract it from the
            # between-object variance (the plug-in keeps it: there the pool is everything)
            noise = 0.0 if plug_in else float(np.mean(var / size))
            return {"d_o": within.mean(axis=1), "b": max(float(np.var(mu, ddof=1)) - noise, 0.0),
                    "w": float(np.mean(var))}
        agree, pi = self._class_agreement(preds, mask, n, voting, rng, plug_in, n_perm)
        return {"d_o": 1.0 - np.nanmean(agree, axis=1), "share": np.nanmean(pi, axis=1)}

    @staticmethod
    def _curve_from_stats(stats, n, measure, d_e):
        d_o = stats["d_o"]
        if measure == "icc":
            b = stats["b"]
            with np.errstate(invalid="ignore", divide="ignore"):
                return b / (b + d_o) if b + stats["w"] > 0 else np.ones_like(n)
        if measure == "fleiss":
            d_e = 1.0 - np.sum(stats["share"] ** 2, axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = 1.0 - d_o / np.where(d_e > 0, d_e, 1.0)
                return np.where(d_e > 0, ratio, np.where(d_o == 0, 1.0, np.nan))
        if d_e == 0:
            return np.where(d_o == 0, 1.0, np.nan)
        return 1.0 - d_o / d_e

    def _class_agreement(self, preds, mask, n, voting, rng, plug_in=False, n_perm=None):
        """agree[k, i]: probability that two forests of n[k] learners predict the same class at
        object i; pi[k, i, c]: probability that one predicts class c.

        Up to half the pool (``2 n <= pool``) both are estimated without bias from disjoint
        forests of the pool itself (a U-statistic over every pair of disjoint forests): in
        closed form for majority votes of two classes without out-of-bag masks
        (:func:`_two_class_vote_agreement`), otherwise by ``n_perm`` random orderings of the
        pool, each cut into forests of ``n`` learners, every pair of them compared. The
        curves average over objects, so the default takes fewer orderings the more objects
        there are: 200 for 50 objects or fewer, 10 from 1,000 objects on
        (the Monte Carlo error of the mean agreement stays below about 0.005). Beyond half
        the pool no two disjoint forests exist and the probabilities are extrapolated from
        the pool's vote shares (:meth:`_class_probabilities`), which treats the shares as
        exact and so overstates stability near a tied vote. ``plug_in``: the extrapolation
        for every ``n``, as the exact answer when the pool itself is the population (the
        bootstrap world of ``_closed_form_errors``).
        """
        n_classes = preds.shape[2]
        if mask is not None:
            keep = mask.sum(axis=1) > 1
            preds, mask = preds[keep], mask[keep]
        agree = np.empty((len(n), len(preds)))
        pi = np.empty((len(n), len(preds), n_classes))
        if n_perm is None:
            n_perm = _orderings(len(preds))
        disjoint = np.zeros(len(n), dtype=bool) if plug_in else 2 * n <= preds.shape[1]
        if disjoint.any() and mask is None and n_classes == 2 and voting == "hard":
            # majority votes of two classes: the U-statistic in closed form
            ones = (preds.argmax(axis=2) == 1).sum(axis=1)
            agree[disjoint], pi[disjoint] = _two_class_vote_agreement(ones, preds.shape[1],
                                                                      n[disjoint].astype(int))
        elif disjoint.any():
            agree[disjoint], pi[disjoint] = _disjoint_forests(preds, mask, n[disjoint].astype(int), voting,
                                                              rng, n_perm)
        if not disjoint.all():
            pi[~disjoint] = self._class_probabilities(preds, mask, n[~disjoint], voting, rng)
            agree[~disjoint] = np.sum(pi[~disjoint] ** 2, axis=2)
        return agree, pi

    def _class_probabilities(self, preds, mask, n, voting, rng, n_sim=2000):
        """pi[k, i, c]: probability that a forest of n[k] learners predicts class c at object i,
        the pool's vote shares taken as exact (learners drawn with replacement from the pool).
        Out of bag, a forest of n learners votes at row i with about n * (oob rate of i)."""
        n_obj, _, n_classes = preds.shape
        weights = np.ones(preds.shape[:2]) if mask is None else mask.astype(float)
        counts = weights.sum(axis=1)
        rate = counts / preds.shape[1]
        out = np.empty((len(n), len(preds), n_classes))
        if voting == "hard":
            votes = np.eye(n_classes)[preds.argmax(axis=2)] * weights[..., None]
            q = votes.sum(axis=1) / counts[:, None]
            for k, size in enumerate(n):
                sizes = np.maximum(np.rint(size * rate), 1).astype(int)
                if n_classes == 2:
                    # class 1 wins only with a strict majority; a tie goes to the first class
                    p1 = stats.binom.sf(sizes // 2, sizes, q[:, 1])
                    out[k] = np.column_stack([1 - p1, p1])
                else:
                    draws = np.stack([rng.multinomial(m, qi, size=n_sim)
                                      for m, qi in zip(sizes, q, strict=True)])
                    out[k] = np.eye(n_classes)[draws.argmax(axis=2)].mean(axis=1)
            return out
        if voting != "soft":
            raise ValueError(f"`voting` must be 'soft' or 'hard'; got {voting!r}.")
        mu = (preds * weights[..., None]).sum(axis=1) / counts[:, None]
        centred = (preds - mu[:, None, :]) * np.sqrt(weights)[..., None]
        for k, size in enumerate(n):
            sizes = np.maximum(size * rate, 1.0)
            if n_classes == 2:
                sd = np.sqrt(np.einsum("ij,ij->i", centred[..., 1], centred[..., 1]) / (counts - 1) / sizes)
                with np.errstate(invalid="ignore", divide="ignore"):
                    z = np.where(sd > 0, (mu[:, 1] - 0.5) / np.where(sd > 0, sd, 1.0),
                                 np.where(mu[:, 1] > 0.5, np.inf, -np.inf))
                p1 = stats.norm.cdf(z)
                out[k] = np.column_stack([1 - p1, p1])
            else:
                for i in range(len(preds)):
                    cov = centred[i].T @ centred[i] / (counts[i] - 1) / sizes[i]
                    draws = rng.multivariate_normal(mu[i], cov, size=n_sim, method="eigh")
                    out[k, i] = np.bincount(draws.argmax(axis=1), minlength=n_classes) / n_sim
        return out


def _hypergeom_pmf(k, population, successes, draws):
    """P(k successes in ``draws`` draws without replacement), broadcast; 0 outside the support.

    From log binomial coefficients: ``scipy.stats.hypergeom.pmf`` gives the same values but
    took 15 s for the 1.5 million (k, successes) pairs of one 2,000-tree grid value here.
    """
    from scipy.special import gammaln

    def log_choose(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    k, successes = np.broadcast_arrays(k, successes)
    inside = (k >= np.maximum(0, draws - (population - successes))) & (k <= np.minimum(draws, successes))
    kk, ss = np.where(inside, k, 0), np.where(inside, successes, draws)
    logp = log_choose(ss, kk) + log_choose(population - ss, draws - kk) - log_choose(population, draws)
    return np.where(inside, np.exp(logp), 0.0)


def _window(center, sd, low, high):
    """Integers center +- (12 sd + 2), one row per center, and which of them lie in [low, high]."""
    width = int(np.ceil(12 * sd)) + 2
    values = np.rint(center)[:, None].astype(int) + np.arange(-width, width + 1)[None, :]
    return values, (values >= low) & (values <= high)


@functools.lru_cache(maxsize=64)
def _split_agreement(n):
    """g(J), J = 0 ... 2n: the chance that a random split of 2n votes, J of them for the
    second class, into two forests of n gives both or neither a majority for it."""
    totals = np.arange(2 * n + 1, dtype=float)
    first, inside = _window(totals / 2, np.sqrt(n / 8), 0, n)
    same = (first > n // 2) == (totals[:, None] - first > n // 2)
    g = np.sum(_hypergeom_pmf(first, 2 * n, totals[:, None], n) * same * inside, axis=1)
    g.flags.writeable = False  # cached: shared by every call
    return g


def _two_class_vote_agreement(ones, size, ns):
    """Exact U-statistics of two forests' majority votes for two classes (see ``_class_agreement``).

    ``ones[i]``: learners of the pool (``size`` of them) voting for the second class at object
    i. Two disjoint forests of n learners hold J ~ Hypergeometric(size, ones, 2n) of those
    votes; split into two halves, each half's count is Hypergeometric(2n, J, n), and the two
    forests agree when both halves are majorities or both are not (the second class wins
    only with more than n / 2 votes: a tie goes to the first class). So
    ``agree_i = sum_J P(J) g(J)`` with ``g(J)`` the chance that a random split of 2n votes
    holding J ones agrees, and ``pi_i1 = P(Hypergeometric(size, ones_i, n) > n / 2)``.
    """
    ones = np.asarray(ones, dtype=float)
    agree = np.empty((len(ns), len(ones)))
    pi = np.empty((len(ns), len(ones), 2))
    for k, n in enumerate(ns):
        half = n // 2
        g = _split_agreement(int(n))
        # P(J) for each object's pool, J in the window around its mean
        sd = np.sqrt(2 * n * 0.25 * max(size - 2 * n, 0) / max(size - 1, 1))
        joint, inside = _window(2 * n * ones / size, sd, 0, 2 * n)
        p_joint = _hypergeom_pmf(joint, size, ones[:, None], 2 * n) * inside
        agree[k] = np.sum(p_joint * g[np.clip(joint, 0, 2 * n)], axis=1)
        sd = np.sqrt(n * 0.25 * (size - n) / max(size - 1, 1))
        votes, inside = _window(n * ones / size, sd, 0, n)
        pi[k, :, 1] = np.sum(_hypergeom_pmf(votes, size, ones[:, None], n) * (votes > half) * inside, axis=1)
        pi[k, :, 0] = 1.0 - pi[k, :, 1]
    return agree, pi


def _disjoint_forests(preds, mask, ns, voting, rng, n_perm, max_elements=10_000_000):
    """Class agreement of pairs of disjoint forests of the pool (see ``_class_agreement``)."""
    n_obj, size, n_classes = preds.shape
    # two classes: the second class wins when its votes (or probabilities; they sum to 1
    # per learner) exceed half the voting learners -- a tie goes to the first class -- so one
    # channel carries the vote
    binary = n_classes == 2
    if binary and voting == "hard":
        scores = (preds.argmax(axis=2) == 1).astype(np.int32)[..., None]
    elif binary:
        scores = np.asarray(preds[..., 1:], dtype=float)
    elif voting == "hard":
        scores = np.eye(n_classes)[preds.argmax(axis=2)]
    else:
        scores = np.asarray(preds, dtype=float)
    if mask is not None:
        scores = scores * mask[..., None]
    agree = np.zeros((len(ns), n_obj))
    pairs_seen = np.zeros((len(ns), n_obj))
    pi = np.zeros((len(ns), n_obj, n_classes))
    forests_seen = np.zeros((len(ns), n_obj))
    chunk = int(np.clip(max_elements // (n_obj * (size + 1) * scores.shape[2]), 1, n_perm))
    for start in range(0, n_perm, chunk):
        orders = rng.permuted(np.tile(np.arange(size), (min(chunk, n_perm - start), 1)), axis=1)
        # running vote totals along each ordering: (objects, orderings, learners + 1, channels)
        totals = np.zeros((n_obj, len(orders), size + 1, scores.shape[2]), dtype=scores.dtype)
        np.cumsum(scores[:, orders], axis=2, out=totals[:, :, 1:])
        if mask is not None:
            voters = np.zeros((n_obj, len(orders), size + 1), dtype=np.int32)
            np.cumsum(mask[:, orders], axis=2, out=voters[:, :, 1:])
        for k, n in enumerate(ns):
            edges = np.arange(0, (size // n) * n + 1, n)
            forest = np.diff(totals[:, :, edges], axis=2)  # (objects, orderings, forests, channels)
            voting_trees = n if mask is None else np.diff(voters[:, :, edges], axis=2)
            # the forest's class: the first of the largest totals, as TreePool.forests
            label = (2 * forest[..., 0] > voting_trees).astype(int) if binary else forest.argmax(axis=3)
            chosen = label[..., None] == np.arange(n_classes)
            if mask is not None:
                chosen &= (voting_trees > 0)[..., None]  # rows without votes
            counts = chosen.sum(axis=2)  # (objects, orderings, classes): forests per class
            m = counts.sum(axis=2)
            with np.errstate(invalid="ignore", divide="ignore"):
                same = (np.sum(counts**2, axis=2) - m) / (m * (m - 1))  # share of agreeing pairs
                share = counts / m[..., None]
            agree[k] += np.where(m > 1, same, 0.0).sum(axis=1)
            pairs_seen[k] += (m > 1).sum(axis=1)
            pi[k] += np.where(m[..., None] > 0, share, 0.0).sum(axis=1)
            forests_seen[k] += (m > 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return agree / pairs_seen, pi / forests_seen[..., None]


def _orderings(n_objects):
    """Random orderings of the pool behind a class closed form (see ``_class_agreement``)."""
    return int(np.clip(np.ceil(10_000 / max(n_objects, 1)), 10, 200))


def _mean_inverse_count(n, rate):
    """E[1 / K | K > 0] for K ~ Binomial(n, rate): shape (len(n), len(rate))."""
    # out-of-bag rates are counts / pool size: few distinct values however many rows
    rates, where = np.unique(rate, return_inverse=True)
    out = np.empty((len(n), len(rates)))
    for k, size in enumerate(np.asarray(n, dtype=float)):
        if size <= 20000:
            counts = np.arange(1, int(size) + 1)[:, None]
            pmf = stats.binom.pmf(counts, int(size), rates[None, :])
            out[k] = (pmf / counts).sum(axis=0) / pmf.sum(axis=0)
        else:  # second-order expansion (relative error ~ 2 / (n rate)^2); K = 0 is impossible here
            lam = size * rates
            out[k] = 1 / lam + (1 - rates) / lam**2
    return out[:, where.ravel()]


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
