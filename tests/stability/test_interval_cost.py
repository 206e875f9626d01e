"""The safety layer's cost (issue 33, item 7): the scale check copies nothing, metric phi's
extra memory is a small fraction of its input, and the class intervals solve each distinct
box once (the 3^K faces of the box-simplex polytope cost per distinct row)."""

import tracemalloc
import warnings

import numpy as np
import pytest

import predstab
from predstab._core._ratings import scaling_shift
from predstab.stability import _object_intervals, _share_box
from predstab.stability._disagreement import _ordinal_delta2
from tests.stability._intervals import bonferroni_box, box_simplex_range


def _peak(call):
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_scale_check_copies_nothing():
    # np.abs(x[np.isfinite(x)]) made two copies of the data: 2x the input; now two reductions
    x = np.random.default_rng(0).normal(size=(20_000, 50))
    x[3, 4] = np.nan
    assert _peak(lambda: scaling_shift(x)) < 0.01 * x.nbytes
    largest = np.nanmax(np.abs(x)) * 1e200  # the exponent of the largest magnitude, made even
    assert scaling_shift(x) == 0 and scaling_shift(x * 1e200) == -2 * (int(np.frexp(largest)[1]) // 2)
    # an infinite value is left out, as before (the finite values are gathered then)
    y = x.copy()
    y[0, 0] = np.inf
    assert scaling_shift(y * 1e-200) == scaling_shift(np.where(np.isinf(y), 0.0, y) * 1e-200) != 0
    assert scaling_shift(np.full((2, 2), np.nan)) == 0


def test_metric_phi_extra_memory_is_a_fraction_of_its_input():
    # 1e6 x 100 took 1.5 GB of extra memory (2.0x the input), mostly the scale check's copies;
    # what is left is the per-object arrays (about 13 of N values: 0.13x at 100 refits)
    rng = np.random.default_rng(1)
    pred = rng.normal(size=(50_000, 1)) * 3 + rng.normal(size=(50_000, 100))
    base = rng.normal(size=1000) * 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        predstab.phi(pred[:50], base)  # imports and caches outside the measurement
        assert _peak(lambda: predstab.phi(pred, base)) < 0.2 * pred.nbytes


def _boxes(counts):
    r = counts.sum(axis=1)
    low, high = _object_intervals._share_bounds(counts, r[:, None], 0.05 / counts.shape[1])
    return low, high


def test_category_boxes_that_are_permutations_are_solved_once(monkeypatch):
    # uniform random votes of 2e5 objects in 5 classes: 59,599 distinct vote tables, 2,768 up to
    # a permutation of the classes, and 1 - sum p^2 does not see the order of the classes
    rng = np.random.default_rng(2)
    counts = rng.multinomial(30, np.full(5, 0.2), size=400)
    counts = np.unique(counts, axis=0)
    low, high = _boxes(counts)
    gini = np.ones((5, 5)) - np.eye(5)
    solved = []
    faces = _share_box._simplex_faces
    monkeypatch.setattr(_share_box, "_simplex_faces",
                        lambda lo, hi, d2: solved.append(len(lo)) or faces(lo, hi, d2))
    theta_low, theta_high = _share_box._simplex_range(low, high, gini)
    assert solved == [len(np.unique(np.sort(counts, axis=1), axis=0))] and solved[0] < len(counts) / 3
    for i in rng.choice(len(counts), 6, replace=False):  # an independent solver (LPs and SLSQP)
        lo, hi = bonferroni_box(counts[i])
        ref_low, ref_high = box_simplex_range(lo, hi, gini)
        assert theta_low[i] == pytest.approx(ref_low, abs=1e-9)
        assert theta_high[i] == pytest.approx(ref_high, abs=1e-7)


@pytest.mark.parametrize("k", [3, 4, 5])
def test_ordinal_face_enumeration_matches_an_independent_solver(k):
    # the faces are solved once per pattern (p_F linear in the fixed shares), not per row
    rng = np.random.default_rng(k)
    counts = rng.multinomial(12, rng.dirichlet(np.ones(k)), size=8)
    delta2 = _ordinal_delta2(rng.integers(1, 30, size=k).astype(float))
    low, high = _boxes(counts)
    theta_low, theta_high = _object_intervals._simplex_range(low, high, delta2)
    for i in range(len(counts)):
        ref_low, ref_high = box_simplex_range(low[i], high[i], delta2)
        assert theta_low[i] == pytest.approx(ref_low, rel=1e-9, abs=1e-9)
        # the reference's SLSQP point, moved back onto sum p = 1 (_intervals.box_simplex_range), is
        # feasible: the enumerated maximum is at least its value (to rounding), and SLSQP's is close
        assert ref_high * (1 - 1e-12) <= theta_high[i] <= ref_high * (1 + 1e-6)


def test_the_face_systems_solved_once_per_matrix_are_each_matrixs_own():
    # the KKT solves of the 3^K faces are kept per Delta (lru_cache): a Gini matrix, then
    # ordinal distances, then Gini again give what the faces solved afresh give, and the
    # independent solver's range
    rng = np.random.default_rng(11)
    counts = rng.multinomial(15, rng.dirichlet(np.ones(4)), size=6)
    low, high = _boxes(counts)
    gini = np.ones((4, 4)) - np.eye(4)
    ordinal = _ordinal_delta2(np.array([3.0, 10.0, 1.0, 6.0]))
    ranges = [_share_box._simplex_faces(low, high, d2) for d2 in (gini, ordinal, gini, ordinal * 4)]
    _share_box._face_systems.cache_clear()
    for d2, got in zip((gini, ordinal, gini, ordinal * 4), ranges, strict=True):
        np.testing.assert_array_equal(got, _share_box._simplex_faces(low, high, d2))
        _share_box._face_systems.cache_clear()
        for i in range(2):
            ref_low, ref_high = box_simplex_range(low[i], high[i], d2)
            assert got[0][i] == pytest.approx(ref_low, rel=1e-9, abs=1e-9)
            assert ref_high * (1 - 1e-12) <= got[1][i] <= ref_high * (1 + 1e-6)
    np.testing.assert_allclose(ranges[3][1], 4 * ranges[1][1], rtol=1e-12)  # not the systems of Delta


def test_class_phi_extra_memory_is_a_bounded_multiple_of_its_int8_input():
    # 1e5 x 100 int8 votes in 5 classes took 1.66-2.37x the input in extra memory (1.22x at 1e6):
    # the (objects x classes) int64 copy of the int32 counts (0.4x), the ranges over the boxes and
    # the refit variances of 1e5 rows at once; now the counts are read in place (int32, 0.24x with
    # the missing counts), D_o,i and the ranges are computed per distinct table, a block at a time
    # (1.1-1.3x measured)
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 5, size=(100_000, 1), dtype=np.int8)
    noise = rng.integers(0, 5, size=(100_000, 100), dtype=np.int8)
    base = rng.integers(0, 5, size=1000, dtype=np.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for pred in (noise, np.where(rng.random(noise.shape) < 0.8, truth, noise).astype(np.int8)):
            for kwargs in ({"scale": "categorical"}, {"scale": "ordinal", "categories": list(range(5))}):
                predstab.phi(pred[:50], base, **kwargs)  # imports and caches outside the measurement
                assert _peak(lambda pred=pred, kwargs=kwargs: predstab.phi(pred, base, **kwargs)) \
                    < 1.4 * pred.nbytes


# --- issue 33 item 7: metric phi's per-object temporaries ----------------------------------------


def _moments_of(n_objects, rng):
    count = rng.integers(2, 30, size=n_objects)          # objects of 2 to 29 refits
    d_o = rng.gamma(2.0, size=n_objects)
    s2 = d_o * (count - 1)
    s4 = s2 * s2 / count * rng.uniform(1.0, 4.0, size=n_objects)
    return count, d_o, s2, s4


def test_the_pooled_kurtosis_sums_block_by_block():
    # eight temporaries of the objects at once (64 MB at 1e6 objects); now blocks of 65,536
    count, _, s2, s4 = _moments_of(1_000_000, np.random.default_rng(3))
    peak = _peak(lambda: _object_intervals._pooled_excess_kurtosis(count, s2, s4))
    assert peak < 8e6                                     # less than one array of the objects
    kappa, used = _object_intervals._pooled_excess_kurtosis(count, s2, s4)
    ok = count >= 4                                       # the formula written out, all at once
    n = count[ok].astype(float)
    m2, m4 = s2[ok] / n, s4[ok] / n
    k2 = n * m2 / (n - 1)
    k4 = n * n * ((n + 1) * m4 - 3 * (n - 1) * m2 ** 2) / ((n - 1) * (n - 2) * (n - 3))
    sigma4 = (k2 * k2 - k4 / n) * (n - 1) / (n + 1)
    assert used == int(ok.sum()) and kappa == pytest.approx(np.sum(k4) / np.sum(sigma4), rel=1e-12)


def test_the_metric_refit_variances_allocate_one_array():
    count, d_o, s2, s4 = _moments_of(1_000_000, np.random.default_rng(4))
    peak = _peak(lambda: _object_intervals._refit_variances(d_o, count, moments=(count, s2, s4)))
    assert peak < 1.25 * 8e6                              # the result (six arrays before)
    got = _object_intervals._refit_variances(d_o, count, moments=(count, s2, s4))
    n = count.astype(float)                               # the jackknife formula written out
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (n - 1) / n * (n / ((n - 1) * (n - 2))) ** 2 * np.maximum(s4 - s2 * s2 / n, 0.0)
    np.testing.assert_array_equal(got, np.where(count >= 3, var, 2.0 * d_o ** 2))


def test_metric_phi_holds_few_arrays_of_the_objects():
    # 0.153x the input at 1e5 x 100 (15 arrays of the objects at once: the stacked moments, the
    # pooled kurtosis's and the refit variances' temporaries), then 0.113x (the per-object bounds
    # of D_o,i, the sums of fourth powers and four arrays of the kurtosis cap alive beside the
    # result's five); now 0.094x, the goal of issue 33 being 0.1x
    rng = np.random.default_rng(5)
    pred = rng.normal(size=(100_000, 1)) * 3 + rng.normal(size=(100_000, 100))
    base = rng.normal(size=1000) * 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        predstab.phi(pred[:50], base)
        assert _peak(lambda: predstab.phi(pred, base)) < 0.1 * pred.nbytes


def test_the_class_refit_variances_go_block_by_block():
    # five (objects x categories) float temporaries of the whole table: 2x the int8 input of
    # categorical phi at 5 categories (peak extra 2.97x at 1e6 x 100); now blocks of 26,214 objects
    rng = np.random.default_rng(6)
    table = rng.multinomial(30, np.full(5, 0.2), size=200_000).astype(np.int32)
    count = table.sum(axis=1)
    d_o = 1.0 - np.einsum("ij,ij->i", table, table) / (count * count.astype(float))
    d_o *= count / (count - 1.0)
    peak = _peak(lambda: _object_intervals._refit_variances(d_o, count, table=table))
    assert peak < 8 * 8 * 200_000       # the result and one block's temporaries (40 MB before: 25 arrays)
    got = _object_intervals._refit_variances(d_o, count, table=table)
    i = rng.choice(200_000, 20, replace=False)            # leave each vote out, written out
    for j in i:
        votes = np.repeat(np.arange(5), table[j])
        loo = [1.0 - np.sum(np.bincount(np.delete(votes, v), minlength=5) ** 2) / 29**2 for v in range(30)]
        loo = np.array(loo) * 29 / 28
        assert got[j] == pytest.approx(29 / 30 * np.sum((loo - loo.mean()) ** 2), rel=1e-12)
