"""predstab's irr functions against irr 0.84.1 (validation/r-reference/agreement, generate.R there).

Tolerance 1e-10 relative; p-values that R computes as 1 - p(...) also 1e-12 absolute.
"""

import math
import warnings

import numpy as np
import pytest

from predstab import (
    PredstabDataWarning,
    PredstabDegenerateWarning,
    PredstabUndefinedWarning,
    agree,
    bhapkar,
    finn,
    inter_intra_reliability,
    iota,
    kendall_w,
    maxwell_re,
    mean_correlation,
    mean_spearman,
    percent_agreement,
    rater_bias,
    robinson_a,
    stuart_maxwell,
)
from validation.suites.irr import expected, read_case, rii_fields

from .conftest import quiet

P_ATOL = 1e-12


def records(name):
    out = []
    for case, recs in expected(name).items():
        for i, r in enumerate(recs if isinstance(recs, list) else [recs]):
            out.append(pytest.param(case, r, id=f"{case}-{i}"))
    return out


def approx(value, rel=1e-10, abs=0):
    return pytest.approx(value, rel=rel, abs=abs, nan_ok=True)


@pytest.mark.parametrize(("case", "r"), records("irr_agree"))
def test_agree(case, r):
    res = quiet(agree, read_case(case), tolerance=r["tolerance"])  # R: agree(m, tolerance)
    assert (res.n_objects, res.n_raters) == (r["subjects"], r["raters"])
    assert res.value == approx(r["value"])
    assert str(res).splitlines()[0] == " " + r["method"]


@pytest.mark.parametrize("as_numbers", [False, True])
def test_agree_judges_a_transposed_matrix_once(as_numbers):
    # 60 objects x 8 refits written the wrong way round: agree reads the matrix once, so one
    # warning even when every warning is shown (it read it twice, two warnings, until 2026-12-08)
    rng = np.random.default_rng(1)
    objects = rng.choice(["a", "b", "c"], size=60)
    pred = np.where(rng.random((60, 8)) < 0.1, "b", objects[:, None]).astype(object)
    if as_numbers:
        pred = np.where(pred == "a", 1, np.where(pred == "b", 2, 3))
    for data, n_warnings in ((pred.T, 1), (pred, 0)):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            res = agree(data)
        start = "`ratings` has 8 rows and 60 columns, and its"
        assert [str(w.message)[:44] for w in seen] == [start] * n_warnings
        unanimous = [len(set(row.tolist())) == 1 for row in data]
        assert res.value == pytest.approx(100 * np.mean(unanimous))
    assert res.value == pytest.approx(100 * np.mean((pred == pred[:, :1]).all(axis=1)))


@pytest.mark.parametrize(("case", "r"), records("irr_kendall"))
def test_kendall_w(case, r):
    res = quiet(kendall_w, read_case(case), correction=r["correct"])  # R: kendall(m, correct)
    assert (res.n_objects, res.df) == (r["subjects"], r["df"])
    assert res.value == approx(r["value"])
    assert res.statistic == approx(r["statistic"])
    assert res.pvalue == approx(r["p.value"])  # pchisq(lower.tail = FALSE)
    assert (res.ties and not res.correction) == ("error" in r)  # "Coefficient may be incorrect due to ties"
    assert ("Coefficient may be incorrect due to ties" in str(res)) == ("error" in r)



def _kendall_by_hand(x, correct):
    # W from scipy's average ranks and the tie sizes of each rater (irr::kendall's formula)
    from scipy import stats

    n, m = x.shape
    sums = stats.rankdata(x, axis=0).sum(axis=1)
    s = ((sums - sums.mean()) ** 2).sum()
    ties = sum(float((t**3 - t).sum()) for t in (np.unique(col, return_counts=True)[1] for col in x.T))
    return 12 * s / (m**2 * (n**3 - n) - (m * ties if correct else 0))


@pytest.mark.parametrize(
    ("kind", "counted"),
    [("integers", True), ("one decimal", True), ("two decimals", True), ("ranks", True),
     ("continuous", False), ("wide integers", False), ("three decimals", False)],
)
@pytest.mark.parametrize("correct", [False, True])
def test_kendall_w_ranking_paths_by_hand(kind, counted, correct):
    # ratings on a grid of 1, 0.1 or 0.01 are ranked by counting, others by sorting: both exact
    from scipy import stats

    from predstab.agreement._concordance import _grid_codes

    rng = np.random.default_rng(3)
    z = rng.normal(size=(60, 1)) + rng.normal(size=(60, 5))
    x = {"integers": np.round(2 * z), "one decimal": np.round(z, 1), "two decimals": np.round(z / 4, 2),
         "ranks": stats.rankdata(z, axis=0), "continuous": z, "wide integers": np.round(z * 1e6),
         "three decimals": np.round(z, 3)}[kind]
    x[1] = x[0]  # ties in every kind
    assert (_grid_codes(x) is not None) == counted
    res = kendall_w(x, correction=correct)
    assert res.value == pytest.approx(_kendall_by_hand(x, correct), rel=1e-14)
    assert res.ties


def test_kendall_w_counting_keeps_nearby_values_apart():
    # 0.9 and the next double both give 9 at one decimal if x * 10 were rounded without checking;
    # x == codes / 10 fails for the latter, so these ratings are sorted, and stay distinct
    from predstab.agreement._concordance import _grid_codes

    x = np.array([[0.9, 1.0], [np.nextafter(0.9, 1), 2.0], [0.5, 3.0], [0.2, 4.0]])
    assert _grid_codes(x) is None
    res = kendall_w(x, correction=True)
    assert not res.ties and res.value == pytest.approx(_kendall_by_hand(x, True), rel=1e-14)

@pytest.mark.parametrize(("case", "r"), records("irr_finn"))
def test_finn(case, r):
    res = quiet(
        finn, read_case(case), n_categories=r["s.levels"], model=r["model"]
    )  # R: finn(m, s.levels, model)
    assert res.value == approx(r["value"])
    assert res.statistic == approx(r["statistic"])
    assert res.pvalue == approx(r["p.value"])  # pf(lower.tail = FALSE)
    assert (res.df1, res.df2) == (math.inf, r["df2"])


@pytest.mark.parametrize(("case", "r"), records("irr_robinson"))
def test_robinson_a(case, r):
    res = quiet(robinson_a, read_case(case))  # R: robinson(m)
    assert (res.n_objects, res.n_raters) == (r["subjects"], r["raters"])
    assert res.value == approx(r["value"])


@pytest.mark.parametrize(
    ("func", "name"), [(mean_correlation, "irr_meancor"), (mean_spearman, "irr_meanrho")]
)
def test_mean_correlations(func, name):
    for case, r in expected(name).items():
        res = quiet(func, read_case(case))  # R: meancor(m, fisher = TRUE) / meanrho(m, fisher = TRUE)
        assert res.value == approx(r["value"]), case
        assert res.statistic == approx(r["statistic"]), case
        assert res.pvalue == approx(r["p.value"], abs=P_ATOL), case  # 2 * (1 - pnorm(|z|))
        note = r.get("error", "")
        assert res.n_dropped == 0 and "dropped" not in note
        assert (func is mean_spearman and res.ties) == ("ties" in note), case


def test_mean_correlation_drops_perfect_correlations_with_a_warning():
    x = np.array([[1.0, 1, 2], [2, 2, 1], [3, 3, 4], [4, 4, 3], [5, 5, 6]])
    with pytest.warns(PredstabDataWarning, match="perfect"):
        res = mean_correlation(x)
    r = np.corrcoef(x, rowvar=False)
    assert res.n_dropped == 1
    assert res.value == pytest.approx(np.tanh(np.mean(np.arctanh([r[0, 2], r[1, 2]]))), rel=1e-14)
    assert mean_correlation(x, fisher=False).value == pytest.approx(np.mean([1, r[0, 2], r[1, 2]]), rel=1e-14)


@pytest.mark.parametrize(("case", "r"), records("irr_maxwell"))
def test_maxwell_re(case, r):
    res = quiet(maxwell_re, read_case(case))  # R: maxwell(m)
    assert res.n_objects == r["subjects"]
    assert res.value == approx(r["value"])


@pytest.mark.parametrize(("case", "r"), records("irr_rater_bias"))
def test_rater_bias(case, r):
    res = quiet(rater_bias, read_case(case))  # R: rater.bias(table over the sorted categories)
    np.testing.assert_array_equal(res.table, np.array(r["table"]))
    assert res.n_objects == r["subjects"]
    assert res.value == approx(r["value"])
    assert res.statistic == approx(r["statistic"])
    assert res.pvalue == approx(r["p.value"], abs=P_ATOL)  # 1 - pchisq


@pytest.mark.parametrize(("case", "r"), records("irr_stuart_maxwell_mh"))
def test_stuart_maxwell(case, r):
    res = quiet(stuart_maxwell, read_case(case))  # R: stuart.maxwell.mh(table over the sorted categories)
    assert res.n_used == r["subjects"] and f"Chisq({res.df})" == r["stat.name"]
    assert res.statistic == approx(r["statistic"]) and res.value == res.statistic
    assert res.pvalue == approx(r["p.value"], abs=P_ATOL)  # 1 - pchisq


def test_stuart_maxwell_where_r_stops():
    # every marginal equal: irr stops ("Too many equal marginals"); predstab: chi2 = 0, p = 1
    res = stuart_maxwell([[1, 2], [2, 1], [3, 3]])
    assert (res.statistic, res.df, res.pvalue) == (0.0, 0, 1.0)
    # singular covariance: irr's solve() stops; predstab: NaN with a warning
    with pytest.warns(PredstabUndefinedWarning, match="singular"):
        assert np.isnan(stuart_maxwell([[1, 2], [1, 2], [3, 4]]).statistic)


@pytest.mark.parametrize(("case", "r"), records("irr_bhapkar"))
def test_bhapkar(case, r):
    res = quiet(bhapkar, read_case(case))  # R: bhapkar(m)
    assert (res.n_objects, res.df) == (r["subjects"], r["df"])
    assert res.statistic == approx(r["statistic"])
    assert res.pvalue == approx(r["p.value"])  # pchisq(lower.tail = FALSE)


@pytest.mark.parametrize(("case", "r"), records("irr_iota"))
def test_iota(case, r):
    variables = [read_case(f) for f in r["files"]]
    # R: iota(list of matrices, scaledata, standardize)
    res = quiet(iota, variables, scale=r["scaledata"], standardize=r["standardize"])
    assert (res.n_objects, res.n_raters) == (r["subjects"], r["raters"])
    assert res.value == approx(r["value"])
    assert str(res).splitlines()[0] == " " + r["method"]
    assert (r["detail"] is not None) == ("z-standardized" in str(res))


@pytest.mark.parametrize(("case", "r"), records("irr_relInterIntra"))
def test_inter_intra_reliability(case, r):
    # R: relInterIntra(m, nrater, rho0inter, rho0intra, conf.level)
    res = quiet(
        inter_intra_reliability,
        read_case(case),
        n_raters=r["nrater"],
        rho0_inter=r["rho0inter"],
        rho0_intra=r["rho0intra"],
        confidence_level=r["conf.level"],
    )
    ours = rii_fields(res)
    theirs = {k: v for group in r["value"].values() for k, v in group.items()}
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        assert ours[key] == approx(value, abs=P_ATOL if key.startswith("pvalue") else 0), key  # p: 1 - pf
    assert (res.n_objects, res.n_raters) == (r["subjects"], r["raters"])


def test_two_rater_functions_on_text_labels_match_numbers():
    x = np.array([[1, 2], [1, 2], [2, 1], [2, 2], [1, 3], [3, 3], [3, 1], [2, 2]])
    labels = np.array(["a", "b", "c"], dtype=object)[x - 1]
    for func in (rater_bias, stuart_maxwell, bhapkar):
        assert func(labels).statistic == pytest.approx(func(x).statistic, rel=1e-14)
    assert agree(labels).value == agree(x).value == 37.5


def test_missing_ratings_are_dropped_listwise():
    x = np.array([[1.0, 2, 1], [2, np.nan, 2], [3, 3, 4], [4, 4, 3], [5, 6, 5]])
    with pytest.warns(PredstabDataWarning, match="dropped"):
        res = kendall_w(x)
    assert res.value == kendall_w(x[[0, 2, 3, 4]]).value and res.n_objects == 4


def test_degenerate_data_follow_the_convention():
    with pytest.warns(PredstabDegenerateWarning):
        assert robinson_a(np.full((4, 3), 2.0)).value == 1.0  # irr: NaN
    with pytest.warns(PredstabDegenerateWarning):
        assert iota(np.full((4, 3), 2.0)).value == 1.0  # irr: NaN


def test_results_print_like_irr():
    res = quiet(kendall_w, read_case("o_30x2"))
    lines = str(res).splitlines()
    assert lines[:5] == [
        " Kendall's coefficient of concordance W",
        "",
        " Subjects = 30",
        "   Raters = 2",
        "        W = 0.845",
    ]
    assert lines[6:8] == ["Chisq(29) = 49", "  p-value = 0.0116"]
    assert len(repr(res)) < 300 and res.to_frame().loc[0, "value"] == res.value


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: agree([[1, 2], [2, 2]], tolerance=-1), "tolerance"),
        (lambda: kendall_w([[1, 2], [2, 2]], correction="yes"), "correction"),
        (lambda: finn([[1, 2], [2, 2]], n_categories=1), "n_categories"),
        (lambda: finn([[1, 2], [2, 2]], n_categories=5, model="two"), "model"),
        (lambda: mean_correlation([[1, 2], [2, 2]], fisher=1), "fisher"),
        (lambda: maxwell_re([[1, 2], [2, 3]]), "ratings"),
        (lambda: rater_bias([[1, 2, 3], [2, 2, 3]]), "ratings"),
        (lambda: iota([[1, 2], [2, 2]], scale="interval"), "scale"),
        (lambda: iota([np.ones((3, 2)), np.ones((4, 2))]), "ratings"),
        (lambda: kendall_w([["a", "b"], ["b", "a"]]), "ratings"),
        (lambda: inter_intra_reliability(np.ones((4, 4)), n_raters=3), "n_raters"),
        (
            lambda: inter_intra_reliability(np.ones((4, 4)), n_raters=2, confidence_level=1),
            "confidence_level",
        ),
        (lambda: inter_intra_reliability(np.ones((4, 4)), n_raters=2, rho0_inter=1.5), "rho0_inter"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises((ValueError, TypeError), match=f"`{name}`"):
        call()


# ---------------------------------------------------------------- declared constraints and invariances
_RNG = np.random.default_rng(7)
_CATS = np.where(_RNG.random((30, 4)) < 0.6, _RNG.integers(1, 5, (30, 1)), _RNG.integers(1, 5, (30, 4)))
_TWO = _CATS[:, :2]
_NUM = _RNG.normal(size=(30, 1)) + _RNG.normal(scale=0.5, size=(30, 4))
# public function -> a valid call's data and options (the constraint test swaps in bad values)
CALLS = {
    "agree": (agree, _CATS, {}),
    "kendall_w": (kendall_w, _NUM, {}),
    "finn": (finn, _CATS, {"n_categories": 5}),
    "robinson_a": (robinson_a, _NUM, {}),
    "mean_correlation": (mean_correlation, _NUM, {}),
    "mean_spearman": (mean_spearman, _NUM, {}),
    "maxwell_re": (maxwell_re, _TWO > 2, {}),
    "rater_bias": (rater_bias, _TWO, {}),
    "stuart_maxwell": (stuart_maxwell, _TWO, {}),
    "bhapkar": (bhapkar, _TWO, {}),
    "iota": (iota, _NUM, {}),
    "inter_intra_reliability": (inter_intra_reliability, _NUM, {"n_raters": 2}),
}
# invalid values of every declared parameter: tests/test_param_registry.py (one table for all)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_permuting_objects_changes_nothing(name):
    func, data, kw = CALLS[name]
    perm = np.random.default_rng(1).permutation(data.shape[0])
    a, b = quiet(func, data, **kw), quiet(func, data[perm], **kw)
    for field in ("value", "statistic", "pvalue", "inter_random", "f_intra"):
        if hasattr(a, field):
            assert getattr(b, field) == approx(getattr(a, field), rel=1e-10, abs=1e-14), field


@pytest.mark.parametrize(
    "name", ["agree", "kendall_w", "robinson_a", "mean_correlation", "mean_spearman", "iota"]
)
def test_permuting_raters_changes_nothing(name):
    func, data, kw = CALLS[name]
    a, b = quiet(func, data, **kw), quiet(func, data[:, ::-1], **kw)
    assert b.value == approx(a.value, rel=1e-10)


def test_swapping_the_two_raters():
    # marginal homogeneity tests do not care which rater is first; the rater-bias ratio becomes 1 - ratio
    for func in (stuart_maxwell, bhapkar):
        assert func(_TWO[:, ::-1]).statistic == pytest.approx(func(_TWO).statistic, rel=1e-10)
    assert rater_bias(_TWO[:, ::-1]).value == pytest.approx(1 - rater_bias(_TWO).value, rel=1e-12)


def test_nominal_iota_ignores_relabelling():
    labels = np.array(["w", "x", "y", "z"], dtype=object)[_CATS - 1]
    assert iota(labels, scale="nominal").value == pytest.approx(iota(_CATS, scale="nominal").value, rel=1e-12)


@pytest.mark.parametrize("func", [agree, rater_bias, kendall_w, bhapkar])
def test_data_warnings_point_at_the_callers_line(func):
    x = np.array([[1.0, 2], [2, np.nan], [3, 3], [1, 2], [2, 1], [2, 3], [3, 1], [1, 1]])
    with pytest.warns(PredstabDataWarning) as record:
        func(x)
    assert record[0].filename == __file__


def test_cohen_data_warnings_point_at_the_callers_line():
    from predstab import cohen_kappa, light_kappa

    x = np.array([[1.0, 2], [2, np.nan], [3, 3], [1, 2], [2, 1]])
    for func in (cohen_kappa, light_kappa):
        with pytest.warns(PredstabDataWarning) as record:
            func(x)
        assert record[0].filename == __file__


def test_degenerate_warnings_point_at_the_callers_line():
    from predstab import cohen_kappa, light_kappa

    same = np.full((4, 3), 2.0)
    for call in (
        lambda: robinson_a(same),
        lambda: iota(same),
        lambda: cohen_kappa(same[:, :2]),
        lambda: light_kappa(same),
    ):
        with pytest.warns(PredstabDegenerateWarning) as record:
            call()
        assert record[0].filename == __file__


# --------------------------------------------------------------------------- percent agreement, two ways
def test_irr_and_irrcac_percent_agreement_relate_as_documented():
    # irr's agree counts the objects on which every rater agrees; irrCAC's pa averages each object's
    # share of agreeing pairs of ratings: for two raters with complete ratings the share is 0 or 1,
    # so pa = agree / 100 = (Maxwell's RE + 1) / 2; with three raters, partial agreement counts for pa
    two = np.array([[0, 0], [1, 1], [1, 0], [0, 0], [1, 1], [0, 1], [1, 1], [0, 0]])
    assert agree(two).value == 75.0  # 6 of 8 objects
    assert percent_agreement(two).value == pytest.approx(0.75, rel=1e-15)
    assert maxwell_re(two).value == pytest.approx(0.5, rel=1e-15)
    three = np.array([[1, 1, 1], [1, 1, 2], [2, 3, 1], [2, 2, 2]])
    # by hand: unanimous objects 2 of 4; pairwise shares 1, 1/3, 0, 1
    assert agree(three).value == 50.0
    assert percent_agreement(three).value == pytest.approx((1 + 1 / 3 + 0 + 1) / 4, rel=1e-15)
    # missing ratings: irr drops the object, irrCAC uses the pairs that are there
    gap = np.array([[1, 1, np.nan], [1, 2, 2], [3, 3, 3], [1, 2, 3]])
    assert quiet(agree, gap).value == pytest.approx(100 / 3)  # objects 2-4: one unanimous
    assert percent_agreement(gap).value == pytest.approx((1 + 1 / 3 + 1 + 0) / 4, rel=1e-15)

