"""Pins found by the mutation runs of ensembles/_closed_form and _closed_form_result (issue 33).

Each test pins a value or a text a surviving mutant changed without any test failing.
"""

import numpy as np
import pytest

from predstab import TreePool
from tests._memory import traced_peak

# five members of pure noise on 40 objects (test_floored_icc.py's NOISE): ICC(1) floored at 0
NOISE = np.random.default_rng(1).normal(size=(40, 5))
# R 4.2.2, irr 0.84.1: icc(m, model = "oneway", unit = "single")$value (test_floored_icc.py)
R_ICC1 = -0.0724852932774128


def test_the_floored_line_of_the_print_says_why_in_full():
    res = TreePool.from_predictions(NOISE, random_state=0).closed_form([1, 2], n_resamples=20, random_state=0)
    text = " ".join(str(res).split())
    assert ("floored = the between-object variance estimate is below 0 (ICC(1) of one learner -0.0725 "
            "without the floor, irr::icc's oneway single value of the objects x learners matrix): the "
            "objects' mean predictions differ less than the learners' own noise predicts; it is floored "
            "at 0, so ICC(1) is 0 at every number of learners") in text
    assert f"{R_ICC1:.4f}" == "-0.0725"
    assert res.single_icc == pytest.approx(R_ICC1, rel=1e-12)


# --------------------------------------------------------------- n_jobs reaches the threads
# The passes over the test objects give the same bits in any number of threads (tested in
# test_closed_form_functions.py), so only these tests see that n_jobs reaches them.
def _run_where(monkeypatch, name):
    """Spy on ``_closed_form.<name>``: the list of whether each call ran in a worker thread."""
    import threading

    from predstab.ensembles import _closed_form as cf

    real, threads = getattr(cf, name), []

    def spy(*args, **kwargs):
        threads.append(threading.current_thread() is not threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(cf, name, spy)
    return threads


@pytest.mark.parametrize("name", ["metric_block", "jackknife_block"])
def test_two_jobs_run_the_blocks_of_objects_in_worker_threads(monkeypatch, name):
    # 150 objects: 3 blocks of 64 rows; with n_jobs=2 every block runs in the thread pool, with
    # n_jobs=1 in the caller's thread (kills `workers > 1` -> `workers > 2`)
    from predstab.ensembles import _closed_form as cf

    preds = np.random.default_rng(3).normal(size=(150, 7))
    threads = _run_where(monkeypatch, name)
    run = (lambda jobs: cf._metric_moments(preds, None, None, n_jobs=jobs, progress=None)) \
        if name == "metric_block" else (lambda jobs: cf._jackknife_pass(preds, jobs))
    serial = run(1)
    assert threads == [False] * 3
    threads.clear()
    parallel = run(2)
    assert threads == [True] * 3
    for a, b in zip(serial if isinstance(serial, tuple) else serial.values(),
                    parallel if isinstance(parallel, tuple) else parallel.values(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_bands_pass_n_jobs_to_the_jackknife_pass(monkeypatch):
    # closed_form_bands -> _jackknife_calibrated -> _metric_jackknife_stats(preds, n_jobs): the
    # jackknife pass of the metric bands threads over its blocks too (kills n_jobs dropped in either)
    from predstab.ensembles import _closed_form as cf

    preds = np.random.default_rng(4).normal(size=(150, 1))[:, [0] * 8] + np.random.default_rng(5).normal(
        size=(150, 8))
    seen, real = [], cf._metric_jackknife_stats
    monkeypatch.setattr(cf, "_metric_jackknife_stats",
                        lambda p, n_jobs=None: seen.append(n_jobs) or real(p, n_jobs))
    two = cf.closed_form_bands(preds, None, [1.0, 4.0], {"icc": None}, classifier=False, voting=None,
                               n_resamples=8, random_state=1, n_jobs=2)["icc"]
    assert seen == [2]
    one = cf.closed_form_bands(preds, None, [1.0, 4.0], {"icc": None}, classifier=False, voting=None,
                               n_resamples=8, random_state=1)["icc"]
    assert seen == [2, None]
    np.testing.assert_array_equal(two.errors, one.errors)  # the numbers do not depend on it


def test_hard_votes_of_three_classes_are_counted_in_small_integers():
    # hard votes of 3+ classes: running counts per class in int16 (issue 34, item 10: float64
    # one-hot running sums made the 3-class tuning 3x slower). The counts by hand: each ordering
    # cut into forests of n learners, a forest's class the first of its most voted (np.argmax of
    # np.bincount); and the peak memory of the counting, 22 bytes per object x ordering x learner
    # (float64 running totals: 70; a bound between them, tracemalloc counts numpy's buffers)
    from predstab.ensembles import _closed_form as cf

    rng = np.random.default_rng(0)
    n_obj, size, n_classes, m = 200, 60, 3, 20
    votes = rng.integers(0, n_classes, (n_obj, size)).astype(np.int16)
    orders = rng.permuted(np.tile(np.arange(size), (m, 1)), axis=1)
    got, peak = traced_peak(lambda: list(cf._hard_class_counts(votes, None, orders, [1, 3, 10], n_classes)))
    assert peak / (n_obj * m * (size + 1)) < 36
    for n, counts in zip([1, 3, 10], got, strict=True):
        for i, o in [(0, 0), (17, 5), (199, 19)]:
            forests = votes[i, orders[o]][: (size // n) * n].reshape(-1, n)
            labels = [np.argmax(np.bincount(f, minlength=n_classes)) for f in forests]
            np.testing.assert_array_equal(counts[i, o], np.bincount(labels, minlength=n_classes))
