"""Suite ``irr``: every irr 0.84.1 function but icc/kappam.fleiss/kripp.alpha, and psych 2.2.9's cohen.kappa.

Inputs: ``r-reference/agreement/cases/*.csv`` (objects x raters, empty = NA); R outputs:
``agreement/expected/irr_*.json`` and ``psych_cohen_kappa.json`` (made by ``generate.R`` there).
Tolerances: 1e-10 relative; p-values that R computes as ``1 - p`` also 1e-12 absolute.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from predstab import (
    agree,
    bhapkar,
    cohen_kappa,
    finn,
    inter_intra_reliability,
    iota,
    kappa_sample_size,
    kendall_w,
    light_kappa,
    maxwell_re,
    mean_correlation,
    mean_spearman,
    rater_bias,
    robinson_a,
    stuart_maxwell,
)
from validation._table import REFERENCE, Row, exact, load_json, rel

SUITE = "irr"
P_ATOL = 1e-12  # R's 1 - pnorm(...) / 1 - pchisq(...) is exact only to ~1e-16 absolute; 1e-12 is the promise
IRR_WEIGHTS = {"unweighted": None, "equal": "linear", "squared": "quadratic"}


def read_case(name):
    """An (objects x raters) matrix as R wrote it (empty = NA)."""
    return pd.read_csv(REFERENCE / "agreement" / "cases" / f"{name}.csv").to_numpy()


def expected(name):
    return load_json("agreement", "expected", f"{name}.json")


def r_levels(m, labels):
    """R's level labels (text) as values of ``m``."""
    return list(labels) if m.dtype == object else [float(v) for v in labels]


def r_num(x):
    """A JSON number of the reference ("NaN", "Inf" are strings there)."""
    return float(x) if x is not None else float("nan")


def quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def psych229_var_weighted(table, w):
    """psych 2.2.9's ``var.weighted``, line by line (``cohen.kappa1``), for a table of counts.

    2.2.9 used ``roww <- rowSums(w * rs)`` (p_j. * sum_k w_jk) where Fleiss, Cohen & Everitt (1969)
    have colSums (sum_i p_i. w_ij); psych 2.3.3 changed it back. Negative values are set to 0 (``bad``).
    """
    tot = table.sum()
    x = table / tot
    rs, cs = x.sum(axis=1), x.sum(axis=0)
    wpo = float(np.sum(w * x))
    wpc = float(np.sum(w * np.outer(rs, cs)))
    colw = (w * cs[:, None]).sum(axis=0)
    roww = rs * w.sum(axis=1)
    var = (
        np.sum(x * (w * (1 - wpc) - (colw[:, None] + roww[None, :]) * (1 - wpo)) ** 2)
        - (wpo * wpc - 2 * wpc + wpo) ** 2
    ) / (tot * (1 - wpc) ** 4)
    return max(float(var), 0.0)


def kappa2_rows():
    for case, recs in expected("irr_kappa2").items():
        m = read_case(case)
        for r in recs:
            # R: kappa2(m, weight = r$weight, sort.levels = r$sort.levels)
            res = quiet(
                cohen_kappa, m, weights=IRR_WEIGHTS[r["weight"]], categories=r_levels(m, r["levels_order"])
            )
            label = f"irr::kappa2 {case} {r['weight']} sort.levels={r['sort.levels']}"
            yield from meta_rows(label, r, res)
            yield rel(SUITE, label, "value", r["value"], res.value)
            yield rel(SUITE, label, "z", r["statistic"], res.statistic)
            yield rel(SUITE, label, "p", r["p.value"], res.pvalue, atol=P_ATOL)


def psych_rows():
    for case, r in expected("psych_cohen_kappa").items():
        m = read_case(case)
        label = f"psych::cohen.kappa {case}"
        if "cohen.kappa" in r:  # more than two raters: pairwise matrix and averages
            res = quiet(cohen_kappa, m)
            ck = np.array(r["cohen.kappa"], dtype=float)
            ours = np.tril(res.pairwise_unweighted, -1) + np.triu(res.pairwise_weighted, 1) + np.eye(len(ck))
            for i, j in zip(*np.nonzero(~np.eye(len(ck), dtype=bool)), strict=True):
                yield rel(SUITE, label, f"cohen.kappa[{i + 1},{j + 1}]", ck[i, j], ours[i, j])
            yield rel(SUITE, label, "av.kappa", r["av.kappa"], res.unweighted_kappa)
            yield rel(SUITE, label, "av.wt", r["av.wt"], res.weighted_kappa)
            continue
        res = quiet(cohen_kappa, m, categories=r_levels(m, r["levels"]))
        yield exact(SUITE, label, "n.obs", r["n.obs"], res.n_objects)
        yield exact(
            SUITE,
            label,
            "levels",
            r["levels"],
            [str(v) if isinstance(v, str) else f"{v:g}" for v in res.categories],
        )
        yield rel(SUITE, label, "kappa", r["kappa"], res.unweighted_kappa)
        yield rel(SUITE, label, "weighted.kappa", r["weighted.kappa"], res.weighted_kappa)
        yield rel(SUITE, label, "var.kappa", r["var.kappa"], res.unweighted_variance)
        ci = r["confid"]
        yield rel(
            SUITE,
            label,
            "confid unweighted lower",
            ci["unweighted kappa"]["lower"],
            res.unweighted_confidence_interval.low,
        )
        yield rel(
            SUITE,
            label,
            "confid unweighted upper",
            ci["unweighted kappa"]["upper"],
            res.unweighted_confidence_interval.high,
        )
        yield rel(SUITE, label, "confid unweighted estimate", ci["unweighted kappa"]["estimate"],
                  res.unweighted_kappa)
        yield rel(SUITE, label, "confid weighted estimate", ci["weighted kappa"]["estimate"],
                  res.weighted_kappa)
        agree, weight = np.array(r["agree"]), np.array(r["weight"])
        yield Row(
            SUITE,
            label,
            "agree (table)",
            "matrix",
            "matrix",
            float(np.abs(res.table - agree).max()),
            "1e-12 abs",
            bool(np.allclose(res.table, agree, 0, 1e-12)),
        )
        yield Row(
            SUITE,
            label,
            "weight",
            "matrix",
            "matrix",
            float(np.abs(res.weight_matrix - weight).max()),
            "1e-12 abs",
            bool(np.allclose(res.weight_matrix, weight, 0, 1e-12)),
        )
        # var.weighted: psych 2.2.9's formula, reproduced by the port; predstab follows FCE 1969
        table = res.table * res.n_objects
        port = psych229_var_weighted(table, res.weight_matrix)
        yield rel(
            SUITE,
            label + " [psych 2.2.9's formula]",
            "var.weighted",
            r["var.weighted"],
            port,
            note="port of psych 2.2.9's cohen.kappa1 reproduces R",
        )
        same = bool(np.allclose(res.weight_matrix, np.eye(len(weight))))
        note = (
            "identity weights: 2.2.9's formula and FCE 1969 coincide"
            if same
            else "deliberate: psych 2.2.9 used rowSums(w * rs) for the column means of the weights; "
            "psych >= 2.3.3 and predstab follow Fleiss, Cohen & Everitt (1969)"
        )
        if same:
            yield rel(SUITE, label, "var.weighted", r["var.weighted"], res.weighted_variance, note=note)
            yield rel(
                SUITE,
                label,
                "confid weighted lower",
                ci["weighted kappa"]["lower"],
                res.weighted_confidence_interval.low,
            )
            yield rel(
                SUITE,
                label,
                "confid weighted upper",
                ci["weighted kappa"]["upper"],
                res.weighted_confidence_interval.high,
            )
        else:
            fce = fce_variance(res.table, res.weight_matrix, res.n_objects)
            yield Row(
                SUITE,
                label,
                "var.weighted",
                r["var.weighted"],
                res.weighted_variance,
                abs(res.weighted_variance - fce),
                "1e-10 rel to FCE 1969",
                abs(res.weighted_variance - fce) <= 1e-10 * abs(fce),
                note,
            )
            for side, value in (
                ("lower", res.weighted_confidence_interval.low),
                ("upper", res.weighted_confidence_interval.high),
            ):
                # psych's interval with predstab's variance in place of 2.2.9's
                half = 1.959963984540054 * math.sqrt(fce) * (-1 if side == "lower" else 1)
                want = min(1.0, max(-1.0, r["weighted.kappa"] + half))
                yield Row(
                    SUITE,
                    label,
                    f"confid weighted {side}",
                    ci["weighted kappa"][side],
                    value,
                    abs(value - want),
                    "1e-10 rel to FCE 1969",
                    abs(value - want) <= 1e-10 * abs(want),
                    note,
                )


def fce_variance(p, w, n):
    """Fleiss, Cohen & Everitt (1969) large-sample variance of weighted kappa, written as in the paper."""
    rs, cs = p.sum(axis=1), p.sum(axis=0)
    po, pe = float(np.sum(w * p)), float(rs @ w @ cs)
    wi, wj = w @ cs, rs @ w
    total = sum(
        p[i, j] * (w[i, j] * (1 - pe) - (wi[i] + wj[j]) * (1 - po)) ** 2
        for i in range(len(p))
        for j in range(len(p))
    )
    return (total - (po * pe - 2 * pe + po) ** 2) / (n * (1 - pe) ** 4)


def light_rows():
    for case, r in expected("irr_kappam_light").items():
        res = quiet(light_kappa, read_case(case))  # R: kappam.light(m)
        label = f"irr::kappam.light {case}"
        yield from meta_rows(label, r, res)
        yield rel(SUITE, label, "value", r["value"], res.value)
        note = "R: sqrt of a negative variance ('NaNs produced')" if r.get("r_warnings") else ""
        yield rel(SUITE, label, "z", r_num(r["statistic"]), res.statistic, note=note)
        yield rel(SUITE, label, "p", r_num(r["p.value"]), res.pvalue, atol=P_ATOL, note=note)


def sample_size_rows():
    for i, r in enumerate(expected("irr_N_cohen_kappa")):
        # R: N.cohen.kappa(rate1, rate2, k1, k0, alpha, power, twosided)
        res = kappa_sample_size(
            r["k1"],
            r["k0"],
            rate1=r["rate1"],
            rate2=r["rate2"],
            significance=r["alpha"],
            power=r["power"],
            two_sided=r["twosided"],
        )
        yield exact(SUITE, f"irr::N.cohen.kappa #{i}", "N", r["N"], res.n_objects)
    for i, r in enumerate(expected("irr_N2_cohen_kappa")):
        # R: N2.cohen.kappa(mrg, k1, k0, alpha, power, twosided)
        res = kappa_sample_size(
            r["k1"], r["k0"], marginals=r["mrg"], significance=r["alpha"], power=r["power"],
            two_sided=r["twosided"]
        )
        yield exact(SUITE, f"irr::N2.cohen.kappa #{i}", "N", r["N"], res.n_objects)


def rii_fields(res):
    """relInterIntra's named values -> predstab's attributes (raters labelled a, b, c, ... as irr does)."""
    labels = "abcdefghijklmnopqrstuvwxyz"[: res.n_raters]
    out = {
        "rhohat.inter.random": res.inter_random,
        "rhohat.intra.random": res.intra_random,
        "rhohat.inter.fixed": res.inter_fixed,
        "rhohat.intra.fixed": res.intra_fixed,
        "Finter": res.f_inter,
        "Fintra": res.f_intra,
        "pvalue.Finter": res.pvalue_inter,
        "pvalue.Fintra": res.pvalue_intra,
        "lowinter.random": res.lower_inter_random,
        "lowinter.fixed": res.lower_inter_fixed,
        "lowintra": res.lower_intra,
        "SEMintra": res.sem_intra,
        "SEMinter.random": res.sem_inter_random,
        "SEMinter.fixed": res.sem_inter_fixed,
    }
    for i, lab in enumerate(labels):
        out[f"rhohat.intra.random.part.{lab}"] = res.intra_random_per_rater[i]
        out[f"rhohat.intra.fixed.part.{lab}"] = res.intra_fixed_per_rater[i]
        out[f"Fintra.{lab}"] = res.f_intra_per_rater[i]
        out[f"pvalue.Fintra.{lab}"] = res.pvalue_intra_per_rater[i]
        out[f"lowintra.{lab}"] = res.lower_intra_per_rater[i]
        out[f"SEMintra.part.{lab}"] = res.sem_intra_per_rater[i]
    return {k: float(v) for k, v in out.items()}


def _r_label(v):
    """A category as R writes it in the JSON (numbers without a trailing .0)."""
    return v if isinstance(v, str) else f"{v:g}"


def meta_rows(label, r, res, *, subjects=True):
    """The counts and names irr prints with every result: subjects, raters, irr.name (exact)."""
    if subjects and "subjects" in r:
        yield exact(SUITE, label, "subjects", r["subjects"], res.n_objects)
    if "raters" in r:
        yield exact(SUITE, label, "raters", r["raters"], res.n_raters)
    if "irr.name" in r:  # irr prints "<irr.name> = <value>": so must predstab's R-style print
        name, printed = r["irr.name"], str(res)
        shown = name if f"{name} = " in printed else printed[:40]
        yield exact(SUITE, label, "irr.name (printed)", name, shown)


def irr_rows():
    for case, recs in expected("irr_agree").items():
        m = read_case(case)
        for r in recs:
            res = quiet(agree, m, tolerance=r["tolerance"])  # R: agree(m, tolerance)
            label = f"irr::agree {case} tolerance={r['tolerance']}"
            yield from meta_rows(label, r, res)
            yield exact(SUITE, label, "method", r["method"], res._method())
            yield rel(SUITE, label, "value", r["value"], res.value)
    for case, recs in expected("irr_kendall").items():
        m = read_case(case)
        for r in recs:
            res = quiet(kendall_w, m, correction=r["correct"])  # R: kendall(m, correct)
            label = f"irr::kendall {case} correct={r['correct']}"
            yield from meta_rows(label, r, res)
            yield exact(SUITE, label, "df", r["df"], res.df)
            yield rel(SUITE, label, "value", r["value"], res.value)
            yield rel(SUITE, label, "statistic", r["statistic"], res.statistic)
            yield rel(SUITE, label, "p", r["p.value"], res.pvalue)
            yield exact(SUITE, label, "ties note", "error" in r, res.ties and not res.correction)
    for case, recs in expected("irr_finn").items():
        m = read_case(case)
        for r in recs:
            res = quiet(finn, m, n_categories=r["s.levels"], model=r["model"])  # R: finn(m, s.levels, model)
            label = f"irr::finn {case} s.levels={r['s.levels']} {r['model']}"
            yield from meta_rows(label, r, res)
            yield exact(SUITE, label, "df1", float(r["df1"]), res.df1)  # R: Inf
            yield rel(SUITE, label, "value", r["value"], res.value)
            yield rel(SUITE, label, "F", r["statistic"], res.statistic)
            yield rel(SUITE, label, "df2", r["df2"], res.df2)
            yield rel(SUITE, label, "p", r["p.value"], res.pvalue)
    for case, r in expected("irr_robinson").items():
        res = quiet(robinson_a, read_case(case))
        yield from meta_rows(f"irr::robinson {case}", r, res)
        yield rel(SUITE, f"irr::robinson {case}", "value", r["value"], res.value)
    for func, name in ((mean_correlation, "meancor"), (mean_spearman, "meanrho")):
        for case, r in expected(f"irr_{name}").items():
            res = quiet(func, read_case(case))  # R: meancor(m, fisher = TRUE) / meanrho(m, fisher = TRUE)
            label = f"irr::{name} {case}"
            yield from meta_rows(label, r, res)
            yield rel(SUITE, label, "value", r["value"], res.value)
            yield rel(SUITE, label, "z", r["statistic"], res.statistic)
            yield rel(SUITE, label, "p", r["p.value"], res.pvalue, atol=P_ATOL)
            yield exact(
                SUITE, label, "ties note", "ties" in r.get("error", ""), name == "meanrho" and res.ties
            )
    for case, r in expected("irr_maxwell").items():
        res = quiet(maxwell_re, read_case(case))
        yield from meta_rows(f"irr::maxwell {case}", r, res)
        yield rel(SUITE, f"irr::maxwell {case}", "value", r["value"], res.value)
    for case, r in expected("irr_rater_bias").items():
        res = quiet(rater_bias, read_case(case))  # R: rater.bias(CxC table over the sorted categories)
        label = f"irr::rater.bias {case}"
        yield from meta_rows(label, r, res)
        yield exact(SUITE, label, "categories", r["categories"], [_r_label(v) for v in res.categories])
        yield exact(SUITE, label, "table", r["table"], res.table.astype(int).tolist())
        # R was called on the C x C table: the same call, rater_bias(table, table=True)
        tab = rater_bias(np.array(r["table"]), table=True)
        yield rel(SUITE, label, "value (table=True)", r["value"], tab.value)
        yield rel(SUITE, label, "statistic (table=True)", r["statistic"], tab.statistic)
        yield rel(SUITE, label, "p (table=True)", r["p.value"], tab.pvalue, atol=P_ATOL)
        yield rel(SUITE, label, "value", r["value"], res.value)
        yield rel(SUITE, label, "statistic", r["statistic"], res.statistic)
        yield rel(SUITE, label, "p", r["p.value"], res.pvalue, atol=P_ATOL)
    for case, r in expected("irr_stuart_maxwell_mh").items():
        res = quiet(stuart_maxwell, read_case(case))  # R: stuart.maxwell.mh(CxC table)
        label = f"irr::stuart.maxwell.mh {case}"
        yield from meta_rows(label, r, res, subjects=False)
        yield exact(SUITE, label, "categories", r["categories"], [_r_label(v) for v in res.categories])
        yield exact(SUITE, label, "table", r["table"], res.table.astype(int).tolist())
        yield exact(SUITE, label, "subjects", r["subjects"], res.n_used)
        tab = quiet(stuart_maxwell, np.array(r["table"]), table=True)  # R's own call: on the C x C table
        yield rel(SUITE, label, "statistic (table=True)", r["statistic"], tab.statistic)
        yield rel(SUITE, label, "p (table=True)", r["p.value"], tab.pvalue, atol=P_ATOL)
        yield exact(SUITE, label, "stat.name", r["stat.name"], f"Chisq({res.df})")
        yield rel(SUITE, label, "statistic", r["statistic"], res.statistic)
        yield rel(SUITE, label, "p", r["p.value"], res.pvalue, atol=P_ATOL)
    for case, r in expected("irr_bhapkar").items():
        res = quiet(bhapkar, read_case(case))  # R: bhapkar(m)
        label = f"irr::bhapkar {case}"
        yield from meta_rows(label, r, res)
        yield exact(SUITE, label, "df", r["df"], res.df)
        yield rel(SUITE, label, "statistic", r["statistic"], res.statistic)
        yield rel(SUITE, label, "p", r["p.value"], res.pvalue)
    for case, recs in expected("irr_iota").items():
        for r in recs:
            # R: iota(list of matrices, scaledata, standardize)
            res = quiet(
                iota, [read_case(f) for f in r["files"]], scale=r["scaledata"], standardize=r["standardize"]
            )
            label = f"irr::iota {case} standardize={r['standardize']}"
            yield from meta_rows(label, r, res)
            yield exact(SUITE, label, "method", r["method"], res._method())
            yield rel(SUITE, label, "value", r["value"], res.value)
    for case, recs in expected("irr_relInterIntra").items():
        m = read_case(case)
        for r in recs:
            # R: relInterIntra(m, nrater, rho0inter, rho0intra, conf.level)
            res = quiet(
                inter_intra_reliability,
                m,
                n_raters=r["nrater"],
                rho0_inter=r["rho0inter"],
                rho0_intra=r["rho0intra"],
                confidence_level=r["conf.level"],
            )
            ours = rii_fields(res)
            label = f"irr::relInterIntra {case} rho0={r['rho0inter']},{r['rho0intra']} conf={r['conf.level']}"
            for group in r["value"].values():
                for key, value in group.items():
                    yield rel(
                        SUITE, label, key, value, ours[key], atol=P_ATOL if key.startswith("pvalue") else 0
                    )


def rows():
    yield from kappa2_rows()
    yield from psych_rows()
    yield from light_rows()
    yield from sample_size_rows()
    yield from irr_rows()
