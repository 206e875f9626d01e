"""predstab.fleiss_kappa against irr::kappam.fleiss and statsmodels."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from predstab import PredstabDataWarning, PredstabDegenerateWarning, conger_kappa, fleiss_kappa
from validation._table import REFERENCE, load_json

from .conftest import classic_case

IRR = load_json("classic", "expected", "irr_kappam_fleiss.json")


case = classic_case


@pytest.mark.parametrize("name", sorted(IRR))
def test_matches_irr(name):
    ref, m = IRR[name], case(name)
    # R: irr::kappam.fleiss(m); kappam.fleiss(m, exact = TRUE); kappam.fleiss(m, detail = TRUE)  (irr 0.84.1)
    res = fleiss_kappa(m, detail=True)
    assert (res.n_objects, res.n_raters) == (ref["subjects"], ref["raters"])
    assert res.value == pytest.approx(ref["value"], rel=1e-10)
    assert res.statistic == pytest.approx(ref["statistic"], rel=1e-10)
    # irr's 2 * (1 - pnorm(|z|)) is exact only to ~1e-16 absolute
    assert res.pvalue == pytest.approx(ref["p.value"], rel=1e-10, abs=1e-15)
    assert fleiss_kappa(m, exact=True).value == pytest.approx(ref["exact_value"], rel=1e-10)
    detail = res.per_category.rename(index=str)
    for d in ref["detail"]:
        row = detail.loc[d["category"]]
        # irr rounds the detail table to 3 decimals
        assert row["kappa"] == pytest.approx(d["kappa"], abs=5e-4)
        assert row["z"] == pytest.approx(d["z"], abs=5e-4)
        assert row["p"] == pytest.approx(d["p.value"], abs=5e-4)


def test_maize_cases_match_irr():
    mz = load_json("aps", "expected", "aps_maize.json")
    for trait in ("leafblight", "maturityclass"):
        m = pd.read_csv(REFERENCE / "aps" / "cases" / f"maize_{trait}_ord_phi_pred.csv").to_numpy()
        # R: irr::kappam.fleiss(p$test)$value  (irr 0.85)
        assert fleiss_kappa(m).value == pytest.approx(mz[f"{trait}_fleiss"], rel=1e-10)


def test_matches_statsmodels_on_ordinary_data():
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    m = case("c_30x6_4cat")
    table, _ = inter_rater.aggregate_raters(m)
    assert fleiss_kappa(m).value == pytest.approx(inter_rater.fleiss_kappa(table), rel=1e-12)


def test_statsmodels_differences_are_documented():
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    raw = np.array([[1, 1, 1], [1, 1, 1]])  # every rater says 1 for both objects
    # statsmodels wants a counts table: the raw matrix is silently read as one and gives -0.5
    assert inter_rater.fleiss_kappa(raw) == pytest.approx(-0.5)
    # aggregated properly, one category: statsmodels divides 0 by 0
    table, _ = inter_rater.aggregate_raters(raw)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(inter_rater.fleiss_kappa(table))
    # predstab: perfect agreement on one category is 1 by the shared convention, with a warning
    with pytest.warns(PredstabDegenerateWarning):
        assert fleiss_kappa(raw).value == 1.0
    # and the table [[1, 1, 1], [1, 1, 1]] as ratings (3 raters, 3 different categories) is -0.5
    assert fleiss_kappa([["a", "b", "c"], ["a", "b", "c"]]).value == pytest.approx(-0.5, rel=1e-12)


def test_categories_of_any_kind():
    numbers = case("c_25x3_binary")
    strings = np.where(numbers == 1, "yes", "no")
    bools = numbers == 1
    base = fleiss_kappa(numbers).value
    assert fleiss_kappa(strings).value == pytest.approx(base, rel=1e-14)
    assert fleiss_kappa(bools).value == pytest.approx(base, rel=1e-14)
    assert fleiss_kappa(pd.DataFrame(strings).astype("string")).value == pytest.approx(base, rel=1e-14)
    assert fleiss_kappa(strings, detail=True).per_category.index.tolist() == ["no", "yes"]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_invariant_to_permutations_and_relabelling(seed):
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 4, size=(15, 5))
    base = fleiss_kappa(m)
    perm = m[rng.permutation(15)][:, rng.permutation(5)]
    relabel = np.array(["w", "x", "y", "z"])[rng.permutation(4)][m]
    for other in (fleiss_kappa(perm), fleiss_kappa(relabel)):
        assert other.value == pytest.approx(base.value, rel=1e-12, abs=1e-15)
        assert other.statistic == pytest.approx(base.statistic, rel=1e-12, abs=1e-15)
    assert fleiss_kappa(m, exact=True).value == pytest.approx(fleiss_kappa(perm, exact=True).value,
                                                               rel=1e-12, abs=1e-15)


def test_exact_has_no_test():
    res = fleiss_kappa(case("c_30x6_4cat"), exact=True)
    assert res.exact and np.isnan(res.statistic) and np.isnan(res.pvalue)


def test_missing_objects_dropped():
    m = case("c_30x6_4cat").astype(object)
    m[3, 2] = None
    m[7, 0] = np.nan
    with pytest.warns(PredstabDataWarning, match="2 of 30 objects"):
        res = fleiss_kappa(m)
    assert res.n_objects == 28
    assert res.value == fleiss_kappa(np.delete(case("c_30x6_4cat"), [3, 7], axis=0)).value


def test_one_category_per_category_detail():
    with pytest.warns(PredstabDegenerateWarning):
        res = fleiss_kappa([["a", "a"], ["a", "a"]], detail=True)
    assert res.value == 1.0 and res.per_category.loc["a", "kappa"] == 1.0


@pytest.mark.parametrize("ratings, exc, match", [
    ([], ValueError, "`ratings`"),
    (np.empty((0, 2)), ValueError, "empty"),
    ([["a"], ["b"]], ValueError, "at least 2 replicates"),
    ([["a", "b"], ["a"]], ValueError, "rectangular"),
    (np.array([[1, "a"], ["b", 2]], dtype=object), TypeError, "one comparable kind"),
    ([[None, "a"], ["b", None]], ValueError, "every one of its"),
    ([[1.0, np.inf], [1.0, 2.0]], ValueError, "infinite"),
])
def test_bad_ratings(ratings, exc, match):
    with pytest.raises(exc, match=match):
        fleiss_kappa(ratings)


def test_bad_options():
    with pytest.raises(TypeError, match="`exact`"):
        fleiss_kappa([[1, 2], [1, 1]], exact="yes")
    with pytest.raises(TypeError, match="`detail`"):
        fleiss_kappa([[1, 2], [1, 1]], detail=1)


def test_to_frame():
    frame = fleiss_kappa(case("c_30x6_4cat")).to_frame()
    assert frame.shape == (1, 8) and frame.loc[0, "value"] == pytest.approx(IRR["c_30x6_4cat"]["value"])


def test_sparse_count_table_gives_the_same_numbers(monkeypatch):
    import predstab.agreement._fleiss as fmod

    m = case("c_30x6_4cat")
    dense = fleiss_kappa(m, detail=True)
    monkeypatch.setattr(fmod, "_COST_SPARSE", 0)
    sparse = fleiss_kappa(m, detail=True)
    assert sparse.value == dense.value and sparse.statistic == dense.statistic
    pd.testing.assert_frame_equal(sparse.per_category, dense.per_category)


def test_many_categories_stay_linear_in_memory():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(20_000, 4))  # continuous: 80 000 categories, a dense table would be 12 GiB
    res = fleiss_kappa(m)
    # nobody agrees: P = 0 and P_e = 1 / 80 000, so kappa = -P_e / (1 - P_e)
    assert res.value == pytest.approx(-1 / 79_999, rel=1e-9)


def _same_result(a, b):
    # bit for bit: the counts are integers, only their representation differs
    np.testing.assert_array_equal([a.value, a.statistic, a.pvalue, a.observed, a.expected],
                                  [b.value, b.statistic, b.pvalue, b.observed, b.expected])
    assert a.categories == b.categories and (a.n_objects, a.n_raters) == (b.n_objects, b.n_raters)
    if a.per_category is not None:  # (same category values; their type follows the input's)
        np.testing.assert_array_equal(a.per_category.to_numpy(), b.per_category.to_numpy())


@pytest.mark.parametrize("method", ["dense", "pairs", "sparse"])
@pytest.mark.parametrize(("n_raters", "n_categories"), [(2, 4), (3, 4), (7, 4), (4, 300)])
def test_counting_methods_and_blocks_agree(monkeypatch, method, n_raters, n_categories):
    import predstab.agreement._fleiss as fmod

    rng = np.random.default_rng(n_raters)
    m = rng.integers(0, n_categories, size=(1000, n_raters))
    m[:, 1] = np.where(rng.random(1000) < 0.5, m[:, 0], m[:, 1])  # some agreement
    default = [fleiss_kappa(m, detail=True), fleiss_kappa(m, exact=True)]
    for name in ("DENSE", "PAIR", "SPARSE"):  # force `method`
        monkeypatch.setattr(fmod, f"_COST_{name}", 0 if method.upper().startswith(name) else 10**9)
    monkeypatch.setattr(fmod, "_BLOCK_CELLS", 7)  # blocks of 16 objects (dense) or 7, the last partial
    forced = [fleiss_kappa(m, detail=True), fleiss_kappa(m, exact=True)]
    for a, b in zip(default, forced, strict=True):
        _same_result(a, b)
    # and against a peer that builds the whole objects x categories table
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    table, _ = inter_rater.aggregate_raters(m)
    assert forced[0].value == pytest.approx(inter_rater.fleiss_kappa(table), rel=1e-12)


def test_input_kinds_give_identical_results():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(500, 4))
    codes[codes[:, 0] == 2, 1] = 2  # some agreement, so that kappa is not ~0
    labels = np.array(["lo", "mid", "up"], dtype=object)
    ref = fleiss_kappa(labels[codes], detail=True)
    categorical = pd.DataFrame({j: pd.Categorical(labels[codes[:, j]], ["up", "lo", "mid", "unused"])
                                for j in range(4)})
    _same_result(fleiss_kappa(categorical, detail=True), ref)
    as_ints = [fleiss_kappa(codes.astype(t), detail=True) for t in (np.int8, np.uint64, float, np.int64)]
    for res in as_ints[1:]:
        _same_result(res, as_ints[0])
    assert as_ints[0].value == ref.value
    as_bool = codes > 0
    _same_result(fleiss_kappa(as_bool, detail=True), fleiss_kappa(as_bool.astype(object), detail=True))


def test_categorical_frame_with_missing_and_unused_categories():
    frame = pd.DataFrame({"a": ["x", "y", None, "y", "z"], "b": ["x", "y", "z", "x", "z"],
                          "c": ["y", "y", "w", "x", "z"]})
    with pytest.warns(PredstabDataWarning, match="1 of 5 objects"):
        ref = fleiss_kappa(frame.to_numpy(dtype=object), detail=True)
    categorical = frame.astype(pd.CategoricalDtype(["z", "y", "x", "w", "v"]))
    with pytest.warns(PredstabDataWarning, match="1 of 5 objects"):
        res = fleiss_kappa(categorical, detail=True)
    _same_result(res, ref)
    assert res.categories == ("x", "y", "z")  # "w" only in the dropped object, "v" never used


def test_wide_integer_labels_in_small_dtypes():
    # int8 labels -100 and 100: the shift to codes must not wrap around in int8
    m = np.array([[-100, 100, 100], [0, 0, 1], [100, 100, 100], [-100, -100, 0]])
    ref = fleiss_kappa(m, detail=True)
    _same_result(fleiss_kappa(m.astype(np.int8), detail=True), ref)
    big = np.array([[2**63 + 5, 2**63 + 7], [2**63 + 7, 2**63 + 7]], dtype=np.uint64)
    assert fleiss_kappa(big).categories == (2**63 + 5, 2**63 + 7)


def test_only_the_kept_objects_must_compare():
    # the object with a missing value is dropped before the categories are ranked, as before
    m = np.array([[1, None, 1], ["a", "a", "b"], ["b", "b", "b"]], dtype=object)
    with pytest.warns(PredstabDataWarning, match="1 of 3 objects"):
        assert fleiss_kappa(m).categories == ("a", "b")
    with pytest.raises(TypeError, match="one comparable kind"):
        fleiss_kappa(np.array([[1, 2, 1], ["a", "a", "b"]], dtype=object))


def test_print_follows_irr_print_irrlist():
    # R: print(irr::kappam.fleiss(c_30x6_4cat))  (irr 0.84.1): kappa -0.0195, z -0.67, p 0.503
    # (format(x, digits = 3) of irr_kappam_fleiss.json), names right-aligned to 9 characters
    m = case("c_30x6_4cat")
    assert str(fleiss_kappa(m)).splitlines() == [
        " Fleiss' Kappa for m Raters", "", " Subjects = 30", "   Raters = 6", "    Kappa = -0.0195", "",
        "        z = -0.67", "  p-value = 0.503"]
    assert str(fleiss_kappa(m, exact=True)).splitlines() == [
        " Fleiss' Kappa for m Raters (exact value)", "", " Subjects = 30", "   Raters = 6",
        "    Kappa = -0.0122"]
    detail = str(fleiss_kappa(m, detail=True)).splitlines()
    assert detail[9].split() == ["Kappa", "z", "p.value"]  # irr's detail table, 3 decimals
    assert detail[10].split()[0] == "a" and float(detail[10].split()[1]) == pytest.approx(
        IRR["c_30x6_4cat"]["detail"][0]["kappa"], abs=5e-4)


# --------------------------------------------------------- value-pinning checks (mutation testing)
# Value-pinning checks of predstab.fleiss_kappa written to kill mutmut's surviving mutants.
#
# Reference: Fleiss (1971) and irr 0.84.1's ``kappam.fleiss`` (standard errors of Fleiss,
# Nee & Landis 1979) written out below; the data have a missing value, so that the dropped
# object's category (4) must vanish from the categories, as it does after R's ``na.omit``.


X = np.array([[1, 2, 2], [1, 1, 1], [3, 3, 2], [2, 2, 2], [1, 3, 3], [np.nan, 4, 4]])


def irr_kappam_fleiss(x):
    x = x[~np.isnan(x).any(axis=1)]
    n, m = x.shape
    cats = sorted(set(x.ravel().tolist()))
    counts = np.array([[np.sum(row == c) for c in cats] for row in x], dtype=float)
    p = counts.sum(axis=0) / (n * m)
    q = 1 - p
    p_i = (np.sum(counts**2, axis=1) - m) / (m * (m - 1))
    p_e = np.sum(p**2)
    kappa = (p_i.mean() - p_e) / (1 - p_e)
    pq = np.sum(p * q)
    se = math.sqrt(2) / (pq * math.sqrt(n * m * (m - 1))) * math.sqrt(pq**2 - np.sum(p * q * (q - p)))
    z = kappa / se
    kappa_j = 1 - np.sum(counts * (m - counts), axis=0) / (n * m * (m - 1) * p * q)
    z_j = kappa_j / math.sqrt(2 / (n * m * (m - 1)))
    return cats, kappa, z, 2 * stats.norm.sf(abs(z)), kappa_j, z_j, 2 * stats.norm.sf(np.abs(z_j))


@pytest.mark.parametrize("as_frame", [None, "category", "shared categories"])
def test_detail_after_dropping_an_object(as_frame):
    # a DataFrame of Categoricals sharing one set of categories is read from its codes
    shared = pd.CategoricalDtype([1.0, 2.0, 3.0, 4.0])
    ratings = X if as_frame is None else pd.DataFrame(X).astype(
        "category" if as_frame == "category" else shared)
    with pytest.warns(PredstabDataWarning) as record:
        res = fleiss_kappa(ratings, detail=True)
    assert [str(w.message) for w in record] == [
        "1 of 6 objects have a missing value and were dropped (as irr::kappam.fleiss does with na.omit)."]
    cats, kappa, z, p, kappa_j, z_j, p_j = irr_kappam_fleiss(X)
    assert res.value == pytest.approx(kappa, rel=1e-12)
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert res.per_category.index.tolist() == cats == [1.0, 2.0, 3.0]
    np.testing.assert_allclose(res.per_category["kappa"], kappa_j, rtol=1e-12)
    np.testing.assert_allclose(res.per_category["z"], z_j, rtol=1e-12)
    np.testing.assert_allclose(res.per_category["p"], p_j, rtol=1e-12)


def test_print_layout():
    # irr print.irrlist: format(x, digits = 3) for kappa, z and p; the detail table to 3 decimals
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PredstabDataWarning)
        res = fleiss_kappa(X, detail=True)
    assert res.statistic == pytest.approx(2.1317383, rel=1e-7)
    assert str(res).splitlines() == [
        " Fleiss' Kappa for m Raters", "",
        " Subjects = 5", "   Raters = 3", "    Kappa = 0.392", "",
        "        z = 2.13", "  p-value = 0.033", "",
        "     Kappa     z  p.value",
        "1.0  0.400 1.549    0.121",
        "2.0  0.444 1.721    0.085",
        "3.0  0.318 1.232    0.218",
    ]


# --------------------------------------------------------------------------- one engine for Conger's kappa
def test_exact_kappa_is_conger_kappa_of_the_complete_objects():
    # irr's kappam.fleiss(exact = TRUE) and irrCAC's conger.kappa.raw are one coefficient, whose chance
    # agreement predstab computes in one function (agreement._cac.conger_chance_agreement). By hand
    # (Conger 1980): p_e = sum_k mean_g(p_gk)^2 - sum_k var_g(p_gk) / (r - 1), variance over raters with
    # denominator r
    x = np.array([[1, 1, 2], [2, 2, 2], [1, 2, 3], [3, 3, 3], [1, 1, 1], [2, 3, 3]])
    shares = np.stack([[np.mean(x[:, g] == k) for k in (1, 2, 3)] for g in range(3)])
    p_e = np.sum(shares.mean(axis=0) ** 2) - np.sum(shares.var(axis=0)) / 2
    sum_sq = sum(np.sum(row == k) ** 2 for row in x for k in (1, 2, 3))
    p_o = (sum_sq - 18) / (18 * 2)
    exact, conger = fleiss_kappa(x, exact=True), conger_kappa(x)
    assert exact.expected == pytest.approx(p_e, rel=1e-14)
    assert conger.expected == pytest.approx(p_e, rel=1e-14)
    assert exact.value == pytest.approx(1 - (1 - p_o) / (1 - p_e), rel=1e-14)
    assert conger.value == pytest.approx(exact.value, rel=1e-14)
    # an incomplete object: irr drops it first, irrCAC keeps its ratings
    y = np.vstack([x, [1, np.nan, 2]])
    with pytest.warns(PredstabDataWarning, match="1 of 7 objects"):
        dropped = fleiss_kappa(y, exact=True)
    assert dropped.value == pytest.approx(exact.value, rel=1e-14)
    assert conger_kappa(y).value != pytest.approx(exact.value, rel=1e-6)



def test_weighted_fleiss_kappa_fields_and_title_name_irrcacs_function():
    # irrCAC's fleiss.kappa.raw (ratings) and fleiss.kappa.dist (a count table of the same
    # objects): the same numbers, the R function in the title, the objects and raters counted
    x = np.array([[1, 1, 2], [2, 2, 2], [1, 2, 3], [3, 3, 3], [1, 1, 1]])
    table = np.array([[(row == c).sum() for c in (1, 2, 3)] for row in x])
    raw = fleiss_kappa(x, weights="quadratic", confidence_level=0.9)
    dist = fleiss_kappa(table, counts=True, weights="quadratic", confidence_level=0.9)
    for res, name in ((raw, "raw"), (dist, "dist")):
        assert (res.n_objects, res.n_raters, res.df, res.confidence_level) == (5, 3, 4, 0.9)
        lines = str(res).splitlines()
        assert lines[0] == f" Fleiss' Kappa for 3 raters (irrCAC::fleiss.kappa.{name})"
        assert lines[2:5] == ["               Subjects = 5", "                 Raters = 3",
                              "                Weights = quadratic"]
        assert lines[-2].lstrip().startswith("90% CI = (")
    assert dist.value == pytest.approx(raw.value, rel=1e-14)
    with pytest.raises(ValueError) as info:
        fleiss_kappa(x, weights="quadratic", exact=True)
    assert str(info.value) == ("`exact` and `detail` are options of irr's kappam.fleiss; with `weights` or "
                               "counts=True (irrCAC's fleiss.kappa.raw / .dist) they must be False.")


def test_fleiss_kappa_of_a_stack_warns_in_words_with_the_item_count():
    x = np.random.default_rng(23).integers(0, 3, size=(4, 8, 3))
    x[1] = 2
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = fleiss_kappa(x)
    assert res.value[1] == 1.0
    assert [str(w.message) for w in record if w.category is PredstabDegenerateWarning] == [
        "1 of 4 items: Both expected and observed disagreement are zero; Fleiss' kappa is set to 1 "
        "(perfect agreement). This may indicate that the model collapsed to a single value."]


def test_exact_kappa_of_a_stack_whose_last_rater_skips_the_top_category():
    # R: irr::kappam.fleiss(a, exact = TRUE)$value, the same for b (irr 0.84.1). The stack's
    # (items x raters x categories) table is one bincount: the last rater of the last item never
    # chose category 3, so the count must still span every category
    a = np.array([[1, 2, 3], [1, 1, 1], [3, 3, 3], [2, 2, 1], [3, 3, 2], [2, 2, 3]])
    b = np.array([[1, 1, 2], [2, 2, 1], [3, 2, 2], [1, 1, 1], [3, 3, 2], [2, 1, 2]])
    res = fleiss_kappa(np.stack([a, b]), exact=True)
    np.testing.assert_allclose(res.value, [0.26027397260273971, 0.14285714285714282], rtol=1e-13)


def test_a_frame_of_categoricals_is_read_from_its_codes(monkeypatch):
    # the Categoricals' own codes: the values are never converted to objects and factorised
    import predstab.agreement._fleiss as fleiss_module

    def refuse(*args, **kwargs):
        raise AssertionError("the values were factorised")

    codes = np.array([[0, 1, 2], [0, 0, 0], [2, 2, 2], [1, 1, 0], [2, 2, 1], [1, 1, 2]])
    frame = pd.DataFrame({j: pd.Categorical.from_codes(codes[:, j], ["x", "y", "z"]) for j in range(3)})
    monkeypatch.setattr(fleiss_module, "factorize_values", refuse)
    res = fleiss_kappa(frame, exact=True)
    assert res.value == pytest.approx(0.26027397260273971, rel=1e-13)  # R, as above (codes + 1)
