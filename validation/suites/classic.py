"""Suite ``classic``: ICC (irr, psych), Fleiss' kappa and Krippendorff's alpha (irr).

Inputs: ``r-reference/classic/cases/*.csv`` (objects x raters) and the maize matrices of
``r-reference/aps/cases``; R outputs: ``classic/expected/{irr_icc,psych_ICC,
irr_kappam_fleiss,irr_kripp_alpha}.json`` and ``aps/expected/aps_maize.json``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from predstab import fleiss_kappa, icc, icc_table, krippendorff_alpha
from validation._table import REFERENCE, Row, absolute, exact, load_json, rel

SUITE = "classic"
P_ATOL = 1e-15  # R prints p-values below double precision of 1 - pnorm as 0

# Krippendorff (2011), section C: 4 observers (rows) x 12 units, nan = missing ('*').
KRIPPENDORFF_2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
])
KRIPPENDORFF_2011_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


def read_case(folder, name):
    """An (objects x replicates) matrix as R wrote it (empty or NA = missing)."""
    return pd.read_csv(REFERENCE / folder / "cases" / f"{name}.csv").to_numpy()


def r_codes(m):
    """R's ``matrix(as.numeric(factor(m)), nrow(m))`` for character matrices, else ``m``."""
    if m.dtype.kind in "biuf":
        return m.astype(float)
    levels = sorted({v for v in m.ravel() if not pd.isna(v)})
    return np.vectorize({v: i + 1.0 for i, v in enumerate(levels)}.get, otypes=[float])(m)


def irr_kripp_alpha(x, method):
    """Line-by-line port of ``irr::kripp.alpha`` 0.84.1 (``x``: raters in rows, units in columns).

    Kept private to validation: it reproduces irr's coincidence matrix, which divides
    by ``m_u - 1`` only when the matrix has a missing value (``mc <- rep(1, ...)``
    otherwise), to show that this is the whole difference from predstab.
    """
    levels = np.unique(x[~np.isnan(x)])
    n_val = len(levels)
    cm = np.zeros((n_val, n_val))
    present = ~np.isnan(x)
    mc = present.sum(axis=0) - 1.0 if (~present).any() else np.ones(x.shape[1])
    for col in range(x.shape[1]):
        for i1 in range(x.shape[0] - 1):
            for i2 in range(i1 + 1, x.shape[0]):
                if present[i1, col] and present[i2, col]:
                    a = np.searchsorted(levels, x[i1, col])
                    b = np.searchsorted(levels, x[i2, col])
                    cm[a, b] += (1 + (a == b)) / mc[col]
                    if a != b:
                        cm[b, a] = cm[a, b]
    if n_val < 2:
        return 1.0
    nmv = cm.sum()
    nc = cm.sum(axis=1)
    c_idx, k_idx = np.triu_indices(n_val, 1)
    if method == "nominal":
        diff2 = np.ones(len(c_idx))
    elif method == "ordinal":
        cum = np.concatenate(([0.0], np.cumsum(nc)))
        diff2 = (cum[k_idx + 1] - cum[c_idx] - (nc[c_idx] + nc[k_idx]) / 2) ** 2
    elif method == "interval":
        diff2 = (levels[c_idx] - levels[k_idx]) ** 2
    elif method == "ratio":
        diff2 = (levels[c_idx] - levels[k_idx]) ** 2 / (levels[c_idx] + levels[k_idx]) ** 2
    else:
        raise ValueError(f"unknown method {method!r}")
    return 1 - (nmv - 1) * np.sum(cm[c_idx, k_idx] * diff2) / np.sum(nc[c_idx] * nc[k_idx] * diff2)


def irr_defect_undone(irr_value, n_values, n_raters):
    """irr's alpha on complete data corrected to the definition.

    On complete data irr's coincidences are (m - 1) times the true ones, so that its
    alpha is ``1 - (n - 1/(m-1)) / (n - 1) * (D_o/D_e)``; this solves for the true alpha.
    """
    m = n_raters
    return 1 - (1 - irr_value) * (n_values - 1) / (n_values - 1 / (m - 1))


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def icc_rows():
    reference = load_json("classic", "expected", "irr_icc.json")
    for case, forms in reference.items():
        m = read_case("classic", case)
        for f in forms:
            res = _quiet(icc, m, model=f["model"], type=f["type"], unit=f["unit"])
            label = f"irr::icc {case} {f['model']}/{f['type'] if f['model'] == 'twoway' else '-'}/{f['unit']}"
            yield exact(SUITE, label, "subjects", f["subjects"], res.n_objects)
            yield exact(SUITE, label, "raters", f["raters"], res.n_raters)
            for quantity, r_key, ours in [("value", "value", res.value), ("F", "Fvalue", res.statistic),
                                          ("df1", "df1", res.df1), ("df2", "df2", res.df2),
                                          ("lower", "lbound", res.confidence_interval.low),
                                          ("upper", "ubound", res.confidence_interval.high)]:
                yield rel(SUITE, label, quantity, f[r_key], ours)
            yield rel(SUITE, label, "p", f["p.value"], res.pvalue, atol=P_ATOL)


def psych_rows():
    reference = load_json("classic", "expected", "psych_ICC.json")
    for case, table in reference.items():
        ours = _quiet(icc_table, read_case("classic", case))
        for row in table:
            label = f"psych::ICC {case} {row['type']}"
            for col, our_col in (("ICC", "ICC"), ("F", "F"), ("df1", "df1"), ("df2", "df2"),
                                 ("lower", "ci_low"), ("upper", "ci_high")):
                yield rel(SUITE, label, col, row[col], ours.loc[row["type"], our_col])
            yield rel(SUITE, label, "p", row["p"], ours.loc[row["type"], "p"], atol=P_ATOL)


def fleiss_rows():
    reference = load_json("classic", "expected", "irr_kappam_fleiss.json")
    for case, r in reference.items():
        m = read_case("classic", case)
        label = f"irr::kappam.fleiss {case}"
        res = fleiss_kappa(m, detail=True)
        yield exact(SUITE, label, "subjects", r["subjects"], res.n_objects)
        yield exact(SUITE, label, "raters", r["raters"], res.n_raters)
        yield rel(SUITE, label, "kappa", r["value"], res.value)
        yield rel(SUITE, label, "z", r["statistic"], res.statistic)
        yield rel(SUITE, label, "p", r["p.value"], res.pvalue, atol=P_ATOL,
                  note="irr: 2 * (1 - pnorm(|z|)); predstab: the normal survival function")
        yield rel(SUITE, label + " exact=TRUE", "kappa", r["exact_value"], fleiss_kappa(m, exact=True).value)
        detail = res.per_category.rename(index=str)
        for d in r["detail"]:
            for quantity, key in (("kappa", "kappa"), ("z", "z"), ("p", "p.value")):
                yield absolute(SUITE, f"{label} detail {d['category']}", quantity, d[key],
                               detail.loc[d["category"], quantity], atol=5e-4,
                               note="irr rounds the detail table to 3 decimals")


def kripp_rows():
    reference = load_json("classic", "expected", "irr_kripp_alpha.json")
    for case, methods in reference.items():
        m = read_case("classic", case)
        codes = r_codes(m)
        complete = not np.isnan(codes).any()
        n_raters = codes.shape[1]
        for r in methods:
            method, r_value = r["method"], r["value"]
            if r_value is None:  # R skipped ratio alpha on data with values <= 0
                continue
            label = f"irr::kripp.alpha {case}"
            ours = krippendorff_alpha(codes, scale=method)
            if not complete or n_raters == 2:
                yield rel(SUITE, label, method, r_value, ours.value)
                continue
            # irr applies no (m_u - 1) division on complete data: show both and explain
            port = irr_kripp_alpha(codes.T, method)
            yield rel(SUITE, label + " [irr's formula]", method, r_value, port,
                      note="port of irr 0.84.1 reproduces irr's number, defect included")
            corrected = irr_defect_undone(r_value, ours.n_values, n_raters)
            diff = abs(ours.value - r_value)
            yield Row(SUITE, label, method, r_value, ours.value, diff,
                      "1e-10 rel to irr with (m_u - 1) restored",
                      abs(ours.value - corrected) <= 1e-10 * abs(corrected),
                      "deliberate: irr divides coincidences by 1, not m_u - 1, on complete data; "
                      "predstab follows Krippendorff (2011)")
    for level, published in KRIPPENDORFF_2011_ALPHA.items():
        value = krippendorff_alpha(KRIPPENDORFF_2011.T, scale=level).value
        yield absolute(SUITE, "Krippendorff (2011) worked example", level, published, value, atol=5e-4,
                       note="published to 3 decimals")


def maize_rows():
    mz = load_json("aps", "expected", "aps_maize.json")
    yield rel(SUITE, "APS maize yield (irr::icc oneway)", "value", mz["yield_icc_oneway"],
              icc(read_case("aps", "maize_yield_phi_pred")).value)
    for trait in ("leafblight", "maturityclass"):
        yield rel(SUITE, f"APS maize {trait} (irr::kappam.fleiss)", "kappa", mz[f"{trait}_fleiss"],
                  fleiss_kappa(read_case("aps", f"maize_{trait}_ord_phi_pred")).value)
    for point in mz["curve"]:
        nt = point["num_trees"]
        yield rel(SUITE, f"APS maize curve {nt} trees (irr::icc)", "value", point["icc_oneway"],
                  icc(read_case("aps", f"maize_curve_{nt:04d}_phi_pred")).value)
    for point in mz["curve_categorical"]:
        nt = point["num_trees"]
        yield rel(SUITE, f"APS maize curvecat {nt} trees (kappam.fleiss)", "kappa", point["fleiss"],
                  fleiss_kappa(read_case("aps", f"maize_curvecat_{nt:04d}_phi_pred")).value)


def rows():
    yield from icc_rows()
    yield from psych_rows()
    yield from fleiss_rows()
    yield from kripp_rows()
    yield from maize_rows()
