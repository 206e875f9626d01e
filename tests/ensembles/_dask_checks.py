"""What the Dask tests compare, shared by tests/ensembles/test_distributed.py (a LocalCluster of
worker processes, issue 37 item 2) and test_distributed_inprocess.py (one in-process cluster, for
the mutation runs): a cluster pool's results against the in-memory pool's of the same seeds."""

import warnings

import numpy as np

from predstab import DaskTreePool, TreePool, tune_num_learners

TOL = 1e-12


def close(a, b, tol=TOL):
    """``a`` and ``b`` of one shape, equal to ``tol`` (NaN where the other is NaN)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=0, atol=tol, equal_nan=True)


def same_tuning(a, b, fit_rtol=0.0):
    """Tables (but the seconds), intervals and the largest forests' phi / psi to 1e-12, the
    recommendations and what the intervals cover equal. ``fit_rtol``: the unrounded
    recommendations come from fit_2pl's optimizer, which stops at its tolerance, so curves equal to
    1e-16 (not bit for bit) give unrounded values equal to about 1e-8."""
    numbers = [c for c in a.table.columns if c != "seconds" and a.table[c].dtype.kind in "fiu"]
    assert numbers
    close(a.table[numbers].to_numpy(), b.table[numbers].to_numpy())
    assert a.recommendation == b.recommendation
    close(tuple(a.confidence_interval), tuple(b.confidence_interval))
    assert a.interval_covers == b.interval_covers
    for m, rec in a.recommendations.items():
        assert rec.value == b.recommendations[m].value
        if rec.unrounded is not None:
            np.testing.assert_allclose(rec.unrounded, b.recommendations[m].unrounded, rtol=fit_rtol, atol=TOL)
    np.testing.assert_allclose(tuple(a.unrounded_interval), tuple(b.unrounded_interval), rtol=fit_rtol,
                               atol=TOL)
    for name in ("largest_phi", "largest_psi"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            close(x.per_object, y.per_object)
            close(x.value, y.value)


def tuned_member_pools(fit_predict, n_members, width, grid, n_resamples):
    """``tune_num_learners`` (closed form, its default learners+objects interval) of the pool of
    ``n_members`` members of ``fit_predict`` in memory and on the current cluster, in chunks of 64
    objects (``width`` values per member and object)."""
    mem = TreePool.from_fit_predict(fit_predict, n_members, random_state=4)
    dist = DaskTreePool.from_fit_predict(fit_predict, n_members, random_state=4,
                                         chunk_bytes=64 * n_members * width * 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = tune_num_learners(mem, grid=grid, method="closed_form", n_resamples=n_resamples, random_state=0)
        b = tune_num_learners(dist, grid=grid, method="closed_form", n_resamples=n_resamples, random_state=0)
    assert a.settings["interval"] == "learners+objects"
    return a, b
