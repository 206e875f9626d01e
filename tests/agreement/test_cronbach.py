"""predstab.cronbach_alpha against psych::alpha (psych 2.2.9) and independent computations."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from predstab import cronbach_alpha
from validation._table import load_json
from validation.suites.cac import ALPHA_TOTAL, read_case

PSYCH = load_json("agreement", "expected", "psych_alpha.json")
RTOL = 1e-10


@pytest.mark.parametrize("case", sorted(PSYCH))
def test_psych_alpha_total_and_feldt(case):
    # R: psych::alpha(x)$total and $feldt (psych 2.2.9, default arguments)
    rec = PSYCH[case]
    res = cronbach_alpha(read_case(case))
    for r_field, attr in ALPHA_TOTAL.items():
        assert getattr(res, attr) == pytest.approx(rec["total"][r_field], rel=RTOL), r_field
    assert res.confidence_interval.low == pytest.approx(rec["feldt"]["lower.ci"], rel=RTOL)
    assert res.confidence_interval.high == pytest.approx(rec["feldt"]["upper.ci"], rel=RTOL)
    assert res.value == pytest.approx(rec["feldt"]["alpha"], rel=RTOL)


@pytest.mark.parametrize("case", sorted(PSYCH))
def test_psych_alpha_drop_and_item_stats(case):
    # R: psych::alpha(x)$alpha.drop and $item.stats; var.r is NA when only two items remain
    rec = PSYCH[case]
    res = cronbach_alpha(read_case(case))
    assert list(res.alpha_drop.index) == list(rec["alpha.drop"])
    for item, fields in rec["alpha.drop"].items():
        for r_field, value in fields.items():
            got = res.alpha_drop.loc[item, r_field]
            if value is None:
                assert np.isnan(got), (item, r_field)
            else:
                assert got == pytest.approx(value, rel=RTOL), (item, r_field)
    for item, fields in rec["item.stats"].items():
        for r_field, value in fields.items():
            assert res.item_stats.loc[item, r_field] == pytest.approx(value, rel=RTOL), (item, r_field)


def test_alpha_by_hand():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 5)) + rng.normal(size=(40, 1))
    k = x.shape[1]
    item_var = x.var(axis=0, ddof=1).sum()
    total_var = x.sum(axis=1).var(ddof=1)
    res = cronbach_alpha(x)
    assert res.value == pytest.approx(k / (k - 1) * (1 - item_var / total_var), rel=1e-13)
    r = np.corrcoef(x, rowvar=False)
    r_bar = (r.sum() - k) / (k * (k - 1))
    assert res.standardized == pytest.approx(k * r_bar / (1 + (k - 1) * r_bar), rel=1e-13)
    assert res.signal_noise == pytest.approx(k * r_bar / (1 - r_bar), rel=1e-13)
    # alpha without item 0, from scratch
    y = x[:, 1:]
    drop0 = (k - 1) / (k - 2) * (1 - y.var(axis=0, ddof=1).sum() / y.sum(axis=1).var(ddof=1))
    assert res.alpha_drop.iloc[0]["raw_alpha"] == pytest.approx(drop0, rel=1e-13)
    # Feldt: 1 - (1 - alpha) F quantiles with (n - 1, (n - 1)(k - 1)) df
    f_hi = stats.f.ppf(0.975, 39, 39 * 4)
    assert res.confidence_interval.low == pytest.approx(1 - (1 - res.value) * f_hi, rel=1e-13)



@pytest.mark.parametrize("k", [3, 4, 7, 8])
def test_item_dropped_median_r_by_hand(k):
    # med.r without item i: np.median of the correlations of the other items, item by item
    rng = np.random.default_rng(k)
    x = rng.integers(1, 4, size=(12, k)) + rng.integers(0, 2, size=(12, 1))  # few values: tied r
    res = cronbach_alpha(x)
    r = np.corrcoef(x, rowvar=False)
    for i in range(k):
        rest = np.delete(np.delete(r, i, axis=0), i, axis=1)
        expected = np.median(rest[np.tril_indices(k - 1, -1)])
        assert res.alpha_drop.iloc[i]["med.r"] == pytest.approx(expected, rel=1e-13), i  # corrcoef's rounding


def test_drop_one_medians_with_ties_and_nan():
    from predstab.agreement._alpha import _drop_one_medians

    rng = np.random.default_rng(1)
    for trial in range(300):
        k = int(rng.integers(3, 10))
        r = np.round(rng.normal(size=(k, k)), 1)  # many ties
        if trial % 4 == 0:
            r[rng.integers(k), rng.integers(k)] = np.nan
        li, lj = np.tril_indices(k, -1)
        lower = r[li, lj]
        expected = [np.median(lower[(li != i) & (lj != i)]) for i in range(k)]
        np.testing.assert_array_equal(_drop_one_medians(lower, k), expected)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf - inf in the reader
@pytest.mark.parametrize("bad", [[np.inf], [np.inf, -np.inf]])
def test_infinite_scores_are_refused(bad):
    x = np.random.default_rng(0).normal(size=(10, 3))
    x[: len(bad), 1] = bad  # the column sum is inf or NaN: the generic reader names the problem
    with pytest.raises(ValueError, match="`items` must hold finite values"):
        cronbach_alpha(x)

def test_two_items_and_three_objects():
    # the smallest input psych accepts: alpha = 2 (1 - (v1 + v2) / var(x1 + x2)); psych 2.2.9 writes
    # the item-dropped rows of two items out (alpha.R: C_12 / C_jj, r_12, smc(R)[1] = r_12^2, r_12,
    # r_12 / (1 - r_12), no standard error, var.r 0, med.r r_12)
    x = np.array([[1.0, 2.0], [2.0, 2.5], [4.0, 3.0]])
    v = x.var(axis=0, ddof=1)
    res = cronbach_alpha(x)
    assert res.value == pytest.approx(2 * (1 - v.sum() / x.sum(axis=1).var(ddof=1)), rel=1e-14)
    assert res.n_objects == 3 and res.n_items == 2
    c12, r12 = np.cov(x.T)[0, 1], np.corrcoef(x.T)[0, 1]
    for row, raw in ((res.alpha_drop.loc["V1"], c12 / v[1]), (res.alpha_drop.loc["V2"], c12 / v[0])):
        expected = [raw, r12, r12**2, r12, r12 / (1 - r12), 0.0, r12]
        assert row.drop("alpha se").tolist() == pytest.approx(expected, rel=1e-13)
        assert np.isnan(row["alpha se"])
    assert cronbach_alpha(x, detail=False).value == pytest.approx(res.value, rel=1e-14)
    with pytest.raises(ValueError, match="at least 3 objects"):
        cronbach_alpha(x[:2])


def test_matches_pingouin():
    pingouin = pytest.importorskip("pingouin")
    x = pd.DataFrame(read_case("m_20x6"))
    value, ci = pingouin.cronbach_alpha(x)
    assert cronbach_alpha(x).value == pytest.approx(value, rel=1e-12)


def test_missing_scores_use_pairwise_covariances():
    x = read_case("m_30x4").to_numpy()
    x[[0, 3, 7], [1, 2, 0]] = np.nan
    frame = pd.DataFrame(x)
    c = frame.cov().to_numpy()  # pairwise-complete, as R's cov(use = "pairwise")
    k = 4
    expected = (1 - np.trace(c) / c.sum()) * k / (k - 1)
    res = cronbach_alpha(x)
    assert res.value == pytest.approx(expected, rel=1e-13)
    assert res.item_stats["n"].tolist() == [29.0, 29.0, 29.0, 30.0]
    # psych with NA: item means and sds over the present scores, raw.r = cor(rowMeans(x, na.rm = TRUE),
    # x_j) over the pairs present, and the total's mean and sd are those of the row means
    row_mean = frame.mean(axis=1)
    stats_ = res.item_stats
    np.testing.assert_allclose(stats_["mean"], frame.mean(), rtol=1e-13)
    np.testing.assert_allclose(stats_["sd"], frame.std(ddof=1), rtol=1e-13)
    np.testing.assert_allclose(stats_["raw.r"], [row_mean.corr(frame[j]) for j in range(k)], rtol=1e-13)
    assert (res.mean, res.sd) == pytest.approx((row_mean.mean(), row_mean.std(ddof=1)), rel=1e-13)
    short = cronbach_alpha(x, detail=False)  # the full path's numbers, fields that need C dropped
    assert (short.value, short.mean, short.sd) == (res.value, res.mean, res.sd)


def test_result_convention():
    res = cronbach_alpha(read_case("m_30x4"))
    text = str(res)
    assert "raw_alpha std.alpha G6(smc) average_r S/N   ase" in text
    assert "Reliability if an item is dropped:" in text
    assert len(repr(res)) < 300
    assert res.to_frame().loc[0, "ci_high"] == res.confidence_interval.high
    assert res == cronbach_alpha(read_case("m_30x4"))


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="`confidence_level`"):
        cronbach_alpha([[1, 2], [2, 3], [3, 5]], confidence_level=2)
    with pytest.raises(ValueError, match="`items`"):
        cronbach_alpha([[1, 2], [2, 3]])
    with pytest.raises(ValueError, match="`items`"):
        cronbach_alpha([1, 2, 3])
    with pytest.raises(TypeError, match="`items`"):
        cronbach_alpha([["a", "b"], ["c", "d"], ["e", "f"]])


@pytest.mark.parametrize("shape", [(5, 3), (1000, 7), (2049, 50), (4100, 1)])
def test_column_sums_against_fsum(shape):
    # the blocked column sums of C-ordered data against math.fsum (the correctly rounded sum)
    import math

    from predstab.agreement._alpha import _column_sums

    x = np.random.default_rng(2).normal(loc=3, size=shape)
    expected = [math.fsum(col) for col in x.T]
    np.testing.assert_allclose(_column_sums(x), expected, rtol=1e-14)
    np.testing.assert_allclose(_column_sums(np.asfortranarray(x)), expected, rtol=1e-14)
    x[-1, 0], x[shape[0] // 2, -1] = np.nan, np.inf  # the last row lies beyond the groups
    sums = _column_sums(x)
    assert np.isnan(sums[0]) and not np.isfinite(sums[-1])


@pytest.mark.parametrize("shape", [(5, 3), (1000, 7), (2049, 50), (4100, 1)])
def test_column_squares_against_fsum(shape):
    # the grouped sums of squares of C-ordered data against math.fsum of the squares
    import math

    from predstab.agreement._alpha import _column_squares

    x = np.random.default_rng(4).normal(loc=-2, size=shape)
    expected = [math.fsum(col * col) for col in x.T]
    np.testing.assert_allclose(_column_squares(x), expected, rtol=1e-14)
    np.testing.assert_allclose(_column_squares(np.asfortranarray(x)), expected, rtol=1e-14)


# ------------------------------------------------------------------ detail=False: O(n k), no k x k matrix
# the fields detail=False shares with detail=True
SUMMARY_FIELDS = ("value", "standardized", "average_r", "signal_noise", "mean", "sd")
NOT_COMPUTED = ("g6", "median_r", "standard_error", "alpha_drop", "item_stats")


def _numpy_alpha(x, confidence_level=0.95):
    """The shared fields from np.cov / np.corrcoef (an independent computation of the k x k path)."""
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    c, r = np.cov(x, rowvar=False), np.corrcoef(x, rowvar=False)
    av_r = (r.sum() - k) / (k * (k - 1))
    raw = k / (k - 1) * (1 - np.trace(c) / c.sum())
    a = 1 - confidence_level
    f_hi, f_lo = stats.f.ppf([1 - a / 2, a / 2], n - 1, (n - 1) * (k - 1))
    return dict(value=raw, standardized=k / (k - 1) * (1 - k / r.sum()), average_r=av_r,
                signal_noise=k * av_r / (1 - av_r), mean=x.mean(axis=1).mean(), sd=x.mean(axis=1).std(ddof=1),
                ci=(1 - (1 - raw) * f_hi, 1 - (1 - raw) * f_lo))


@pytest.mark.parametrize("case", sorted(PSYCH))
def test_summary_against_psych_the_full_path_and_numpy(case):
    # R: psych::alpha(x)$total and $feldt (psych 2.2.9, default arguments)
    rec = PSYCH[case]
    x = read_case(case)
    short, full = cronbach_alpha(x, detail=False), cronbach_alpha(x)
    shared = {f: a for f, a in ALPHA_TOTAL.items() if a in SUMMARY_FIELDS}
    assert sorted(shared.values()) == sorted(SUMMARY_FIELDS)
    for r_field, attr in shared.items():
        assert getattr(short, attr) == pytest.approx(rec["total"][r_field], rel=RTOL), r_field
        assert getattr(short, attr) == pytest.approx(getattr(full, attr), rel=1e-12), attr  # rounding only
    assert short.confidence_interval.low == pytest.approx(rec["feldt"]["lower.ci"], rel=RTOL)
    assert short.confidence_interval.high == pytest.approx(rec["feldt"]["upper.ci"], rel=RTOL)
    assert short.value == pytest.approx(rec["feldt"]["alpha"], rel=RTOL)
    assert short.confidence_interval.low == pytest.approx(full.confidence_interval.low, rel=1e-12)
    assert short.confidence_interval.high == pytest.approx(full.confidence_interval.high, rel=1e-12)
    expected = _numpy_alpha(x)
    for attr in SUMMARY_FIELDS:
        assert getattr(short, attr) == pytest.approx(expected[attr], rel=1e-12), attr
    assert short.confidence_interval == pytest.approx(expected["ci"], rel=1e-12)
    assert (short.n_objects, short.n_items, short.confidence_level) == (full.n_objects, full.n_items, 0.95)
    for attr in NOT_COMPUTED:
        assert getattr(short, attr) is None, attr


@pytest.mark.parametrize("layout", ["C", "F", "frame", "int", "large_mean", "few_rows"])
def test_summary_against_numpy_on_every_path(layout):
    rng = np.random.default_rng(7)
    n, k = 3001, 9  # groups of 2048 // k = 227 rows viewed as one: 13 groups and 50 rows left
    x = rng.normal(size=(n, 1)) + rng.normal(scale=1.3, size=(n, k)) + np.arange(k) / 3
    if layout == "F":
        x = np.asfortranarray(x)
    elif layout == "frame":
        x = pd.DataFrame(x, columns=[f"item{j}" for j in range(k)])
    elif layout == "int":
        x = np.clip(np.rint(x + 3), 1, 5).astype(np.int64)  # Likert items: E[x^2] / var ~ 10
    elif layout == "large_mean":
        x = x + 1e3  # E[x^2] / var ~ 1e6 > _MAX_UNCENTRED_RATIO: centred variances
    elif layout == "few_rows":
        x = x[:200]  # fewer rows than one group: plain column sums and squares
    short = cronbach_alpha(x, detail=False, confidence_level=0.9)
    full = cronbach_alpha(x, confidence_level=0.9)
    expected = _numpy_alpha(x, 0.9)
    for attr in SUMMARY_FIELDS:
        assert getattr(short, attr) == pytest.approx(expected[attr], rel=1e-12), attr
        assert getattr(short, attr) == pytest.approx(getattr(full, attr), rel=1e-12), attr
    assert short.confidence_interval == pytest.approx(expected["ci"], rel=1e-12)
    assert short.confidence_level == 0.9


def test_summary_sum_of_standardised_items():
    # var(sum_j z_j) = k + 2 sum_{i<j} r_ij: std.alpha and average_r from it, by hand
    rng = np.random.default_rng(3)
    x = rng.normal(size=(500, 1)) + rng.normal(size=(500, 6))
    z = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
    v, k = z.sum(axis=1).var(ddof=1), 6
    r = np.corrcoef(x, rowvar=False)
    assert v == pytest.approx(k + 2 * r[np.tril_indices(k, -1)].sum(), rel=1e-13)
    short = cronbach_alpha(x, detail=False)
    assert short.standardized == pytest.approx(k / (k - 1) * (1 - k / v), rel=1e-12)
    assert short.average_r == pytest.approx((v - k) / (k * (k - 1)), rel=1e-12)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the constant item's r
@pytest.mark.parametrize("kind", ["missing", "constant"])
def test_summary_falls_back_to_the_full_path(kind):
    # missing scores (pairwise-complete covariances) or a constant item: the full path's numbers
    x = read_case("m_30x4").to_numpy()
    if kind == "missing":
        x[[0, 3, 7], [1, 2, 0]] = np.nan
    else:
        x[:, 2] = 2.0
    short, full = cronbach_alpha(x, detail=False), cronbach_alpha(x)
    for attr in (*SUMMARY_FIELDS, "n_objects", "n_items", "confidence_level", "confidence_interval"):
        assert _same(getattr(short, attr), getattr(full, attr)), attr  # bit for bit: the same computation
    for attr in NOT_COMPUTED:
        assert getattr(short, attr) is None, attr
    if kind == "missing":
        c = pd.DataFrame(x).cov().to_numpy()  # pairwise-complete, as R's cov(use = "pairwise")
        assert short.value == pytest.approx((1 - np.trace(c) / c.sum()) * 4 / 3, rel=1e-13)


def _same(a, b):
    return bool(np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True))


def test_summary_result_convention():
    x = read_case("m_30x4")
    short = cronbach_alpha(x, detail=False)
    text = str(short)
    assert text.splitlines()[2].split() == ["raw_alpha", "std.alpha", "average_r", "S/N", "mean", "sd"]
    assert "Not computed (detail = FALSE): G6(smc), ase, median_r, the item-dropped table" in text
    assert "Reliability if an item is dropped:" not in text
    assert "g6=None" in repr(short) and len(repr(short)) < 300
    frame, full_frame = short.to_frame(), cronbach_alpha(x).to_frame()
    assert list(frame.columns) == list(full_frame.columns)  # the same columns, None where not computed
    assert frame.loc[0, "g6"] is None and frame.loc[0, "ci_low"] == short.confidence_interval.low
    assert frame.loc[0, "value"] == pytest.approx(full_frame.loc[0, "value"], rel=1e-12)
    assert short == cronbach_alpha(x, detail=False)
    assert short != cronbach_alpha(x)


def test_bad_detail_names_the_parameter():
    with pytest.raises(ValueError, match="`detail` must"):
        cronbach_alpha([[1, 2], [2, 3], [3, 5]], detail="no")
    with pytest.raises(ValueError, match="`items`"):  # the same reader's message as detail=True
        cronbach_alpha([[1, 2], [2, 3]], detail=False)
    with pytest.raises(ValueError, match="`items` must hold finite values"):
        cronbach_alpha([[1, 2], [2, np.inf], [3, 5]], detail=False)


def _r_print_row(names, values):
    # R's print.data.frame(digits = 2) of one row: two significant digits, trailing zeros dropped,
    # each column right-aligned to the wider of its name and its cell
    cells = [f"{v:.2g}" for v in values]
    widths = [max(len(n), len(c)) for n, c in zip(names, cells, strict=True)]
    return ["  " + " ".join(n.rjust(w) for n, w in zip(names, widths, strict=True)),
            "  " + " ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))]


@pytest.mark.parametrize("detail", [True, False])
def test_print_is_psych_layout_with_r_numbers(detail):
    # psych's print.psych for alpha: the total row (digits = 2), Feldt's boundaries (signif 2) and
    # the item-dropped table (round 2); the numbers here are R's (psych 2.2.9 records), not predstab's
    rec = PSYCH["m_30x4"]
    lines = str(cronbach_alpha(read_case("m_30x4"), detail=detail)).splitlines()
    names = list(ALPHA_TOTAL) if detail else ["raw_alpha", "std.alpha", "average_r", "S/N", "mean", "sd"]
    assert lines[:2] == [" Reliability analysis (psych::alpha)", ""]
    assert lines[2:4] == _r_print_row(names, [rec["total"][n] for n in names])
    feldt = [f"{rec['feldt'][f]:.2g}".rjust(5) for f in ("lower.ci", "alpha", "upper.ci")]
    assert lines[4:8] == ["", " 95% confidence boundaries (Feldt)", "  lower alpha upper",
                          "  " + " ".join(feldt)]
    if not detail:
        assert lines[8:] == [
            "", " Not computed (detail = FALSE): G6(smc), ase, median_r, the item-dropped table",
            " and the item statistics (they need the k x k covariance matrix)."]
        return
    assert lines[8:10] == ["", " Reliability if an item is dropped:"]
    header, *rows = lines[10:]
    assert header.split() == ["raw_alpha", "std.alpha", "G6(smc)", "average_r", "S/N", "alpha", "se", "var.r",
                              "med.r"]
    assert len(rows) == len(rec["alpha.drop"])
    for row, (item, fields) in zip(rows, rec["alpha.drop"].items(), strict=True):
        assert row.startswith("  " + item + " ")
        assert [float(v) for v in row.split()[1:]] == [round(v, 2) for v in fields.values()]


def test_summary_never_forms_the_covariance_matrix(monkeypatch):
    # detail=False on complete numeric data is the O(n k) shortcut: no k x k matrix, no full path
    import predstab.agreement._alpha as alpha_module

    def refuse(*args, **kwargs):
        raise AssertionError("the k x k path was taken")

    x = read_case("m_30x4")
    expected = cronbach_alpha(x, detail=False)
    monkeypatch.setattr(alpha_module, "_covariance", refuse)
    monkeypatch.setattr(alpha_module, "_psych_alpha", refuse)
    rng = np.random.default_rng(11)
    small_spread = rng.normal(size=(400, 1)) * 0.01 + rng.normal(scale=0.02, size=(400, 5))  # variances < 1
    for data in (x, small_spread, small_spread + 0.5, np.rint(small_spread * 300).astype(np.int64)):
        cronbach_alpha(data, detail=False)
    assert cronbach_alpha(x, detail=False) == expected


# ----------------------------------------------------------------------------- mutation survivors (issue 24)
def test_summary_of_two_items_never_forms_the_covariance_matrix(monkeypatch):
    import predstab.agreement._alpha as alpha_module

    def refuse(*args, **kwargs):
        raise AssertionError("the k x k path was taken")

    x = np.array([[1.0, 2.0], [2.0, 2.5], [4.0, 3.0], [3.0, 3.5]])
    monkeypatch.setattr(alpha_module, "_psych_alpha", refuse)
    res = cronbach_alpha(x, detail=False)
    v = x.var(axis=0, ddof=1)
    assert res.value == pytest.approx(2 * (1 - v.sum() / x.sum(axis=1).var(ddof=1)), rel=1e-14)
    r = np.corrcoef(x.T)[0, 1]
    assert res.standardized == pytest.approx(2 * r / (1 + r), rel=1e-14)


def test_complete_data_take_the_one_pass_covariance(monkeypatch):
    # complete numeric data: the covariance from X'X (psych's cov), not pandas' pairwise-complete one
    import predstab.agreement._alpha as alpha_module

    calls = []
    covariance = alpha_module._covariance

    def spy(x, mean):
        calls.append(x.shape)
        return covariance(x, mean)

    x = read_case("m_30x4").to_numpy()
    monkeypatch.setattr(alpha_module, "_covariance", spy)
    res = cronbach_alpha(x)
    assert calls == [(30, 4)]
    c = np.cov(x.T)
    assert res.value == pytest.approx((1 - np.trace(c) / c.sum()) * 4 / 3, rel=1e-13)


def test_object_scores_with_missing_values_are_read_as_numbers():
    x = read_case("m_30x4").to_numpy()
    x[[0, 3], [1, 2]] = np.nan
    objects = x.astype(object)
    objects[0, 1] = None
    res = cronbach_alpha(objects)
    expected = cronbach_alpha(x)
    assert (res.value, res.standardized, res.mean, res.sd) == pytest.approx(
        (expected.value, expected.standardized, expected.mean, expected.sd), rel=1e-14)
    assert res.item_stats["n"].tolist() == [30.0, 29.0, 29.0, 30.0]
    with pytest.raises(ValueError, match=r"`items` has no score: all 6 values are missing\."):
        cronbach_alpha(np.full((3, 2), None, dtype=object))


def test_extreme_magnitudes_scale_back_the_means_and_sds():
    # the coefficients are scale invariant; the means and sds are in the data's units
    x = read_case("m_30x4").to_numpy()
    for factor in (1e200, 1e-200):
        big, base = cronbach_alpha(x * factor), cronbach_alpha(x)
        assert big.value == pytest.approx(base.value, rel=1e-13)
        assert (big.mean, big.sd) == pytest.approx((base.mean * factor, base.sd * factor), rel=1e-13)
        np.testing.assert_allclose(big.item_stats["mean"], base.item_stats["mean"] * factor, rtol=1e-13)
        np.testing.assert_allclose(big.item_stats["sd"], base.item_stats["sd"] * factor, rtol=1e-13)


def _psych_smc(r):
    """psych 2.2.9's smc: 1 - 1 / diag(Pinv(R)), Pinv dropping singular values <= sqrt(eps) times the
    largest, then set into [0, 1]."""
    u, d, vt = np.linalg.svd(r)
    keep = d > np.sqrt(np.finfo(float).eps) * d[0]
    pinv = vt[keep].T @ np.diag(1 / d[keep]) @ u[:, keep].T
    return np.clip(1 - 1 / np.diag(pinv), 0, 1)


@pytest.mark.parametrize("copy", ["repeated", "sum"])
def test_smc_of_a_singular_correlation_matrix_is_psychs(copy):
    # an item repeating item 1 (R exactly singular) or the sum of items 1 and 2 (singular up to
    # rounding): psych's smc takes the pseudo-inverse and sets the smcs into [0, 1]; so does G6 of
    # the scale, of every item-dropped scale, and r.cor (R with the smcs on its diagonal)
    x = read_case("m_30x4").to_numpy()
    x = np.column_stack([x, x[:, 0] if copy == "repeated" else x[:, 0] + x[:, 1]])
    r = np.corrcoef(x.T)
    res = cronbach_alpha(x)
    k = x.shape[1]
    smc = _psych_smc(r)
    assert res.g6 == pytest.approx(1 - (k - smc.sum()) / r.sum(), rel=1e-9)
    rc = r.copy()
    np.fill_diagonal(rc, smc)
    np.testing.assert_allclose(res.item_stats["r.cor"], rc.sum(axis=0) / np.sqrt(rc.sum()), rtol=1e-9)
    expected = []
    for i in range(k):
        keep = [j for j in range(k) if j != i]
        sub = r[np.ix_(keep, keep)]
        expected.append(1 - (k - 1 - _psych_smc(sub).sum()) / sub.sum())
    np.testing.assert_allclose(res.alpha_drop["G6(smc)"], expected, rtol=1e-9)
    assert ((smc >= 0) & (smc <= 1)).all()


def test_smc_of_an_indefinite_pairwise_correlation_matrix_is_set_into_0_1():
    # pairs of items seen on different objects: the pairwise-complete R is indefinite (a
    # correlation beyond 1); 1 - 1 / diag(R^-1) leaves [0, 1] on both sides, psych sets it back
    rng = np.random.default_rng(0)
    x = np.full((60, 3), np.nan)
    pairs = ((slice(0, 20), (0, 1), 1), (slice(20, 40), (1, 2), 1), (slice(40, 60), (0, 2), -1))
    for rows, (i, j), sign in pairs:
        t = rng.normal(size=20)
        x[rows, i], x[rows, j] = t, sign * t + 0.1 * rng.normal(size=20)
    c = pd.DataFrame(x).cov().to_numpy()
    r = c / np.sqrt(np.outer(np.diag(c), np.diag(c)))
    raw = 1 - 1 / np.diag(np.linalg.inv(r))
    assert raw.min() < 0 and raw.max() > 1
    smc = _psych_smc(r)
    np.testing.assert_allclose(smc, np.clip(raw, 0, 1), atol=1e-12)
    res = cronbach_alpha(x)
    assert res.g6 == pytest.approx(1 - (3 - smc.sum()) / r.sum(), rel=1e-12)


def test_well_conditioned_items_take_one_inverse(monkeypatch):
    # psych's Pinv of a well-conditioned R (and of every R without an item) is its inverse: one
    # inverse of R serves the scale and every item-dropped scale, no SVD
    import predstab.agreement._alpha as alpha_module

    def refuse(*args, **kwargs):
        raise AssertionError("the pseudo-inverse was taken")

    x = read_case("m_20x6").to_numpy()
    expected = cronbach_alpha(x)
    monkeypatch.setattr(alpha_module, "_psych_pinv", refuse)
    res = cronbach_alpha(x)
    pd.testing.assert_frame_equal(res.alpha_drop, expected.alpha_drop)
    r = np.corrcoef(x.T)
    smc = 1 - 1 / np.diag(np.linalg.inv(r))
    assert res.g6 == pytest.approx(1 - (6 - smc.sum()) / r.sum(), rel=1e-12)


# psych 2.2.9's alpha(x, check.keys = FALSE) in R 4.2.2 (../shared/r-peers/install.sh), 2026-12-05: values
# pasted in full: a repeated item makes R singular (smc from psych's Pinv, clipped to [0, 1]); two items
# give psych's own item-dropped rows (no standard error, var.r 0)
_SINGULAR = np.column_stack([
    [3.1, 2.4, 4.0, 1.2, 3.3, 2.8, 4.4, 1.9, 2.2, 3.6, 2.9, 1.5],
    [2.0, 3.5, 3.9, 1.0, 2.1, 3.0, 4.1, 2.6, 1.4, 3.1, 2.2, 2.5],
    [1.2, 2.2, 3.1, 2.3, 3.0, 1.9, 3.8, 1.1, 2.9, 2.4, 3.3, 1.7]])
_TWO = np.column_stack([[1.0, 2.5, 3.1, 0.4, 2.2, 1.8, 3.3, 2.9, 1.1, 2.0],
                        [1.9, 2.1, 3.8, 1.2, 2.0, 2.9, 3.1, 3.5, 0.7, 2.6]])
_DROP_COLUMNS = ["raw_alpha", "std.alpha", "G6(smc)", "average_r", "S/N", "alpha se", "var.r", "med.r"]


@pytest.mark.parametrize("items, total, drop", [
    (np.column_stack([_SINGULAR, _SINGULAR[:, 0]]),
     (0.874601804088842, 0.869647768943792, 0.724190351018166, 0.625170615413856, 0.621876463331544),
     [[0.756613524877365, 0.751813296769621, 0.742008205853721, 0.502423588606683, 3.02922472068034,
       0.121119137869168, 0.0459461107668455, 0.565848408513038],
      [0.885407933115265, 0.880454891098955, 0.631051859007092, 0.710565605675359, 7.36504319744072,
       0.0621365777669268, 0.0628292014635541, 0.565848408513038],
      [0.917350979574823, 0.916464877067921, 0.670569076378654, 0.7852696787667, 10.971012490316,
       0.0468975493643147, 0.0345818331427172, 0.67790451815005],
      [0.756613524877365, 0.751813296769621, 0.742008205853722, 0.502423588606683, 3.02922472068034,
       0.121119137869168, 0.0459461107668455, 0.565848408513038]]),
    (_TWO,
     (0.902743620045354, 0.90286167630069, 0.822924199071306, 0.822924199071306, 0.822924199071306),
     [[0.805150410209663, 0.822924199071306, 0.67720423741715, 0.822924199071306, 4.64729903665766,
       np.nan, 0.0, 0.822924199071306],
      [0.841090346387335, 0.822924199071306, 0.67720423741715, 0.822924199071306, 4.64729903665766,
       np.nan, 0.0, 0.822924199071306]]),
], ids=["repeated-item", "two-items"])
def test_singular_and_two_item_tables_match_psych(items, total, drop):
    res = cronbach_alpha(items)
    np.testing.assert_allclose([res.value, res.standardized, res.g6, res.average_r, res.median_r], total,
                               rtol=1e-12)
    np.testing.assert_allclose(res.alpha_drop[_DROP_COLUMNS].to_numpy(float), drop, rtol=1e-12, atol=1e-15)
