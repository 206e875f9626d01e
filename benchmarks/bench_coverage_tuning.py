"""Coverage of the closed forms' learners-only bands and of the recommendation interval.

Usage::

    PYTHONPATH=src python benchmarks/bench_coverage_tuning.py          # writes the page
                                                                       # docs/benchmarks/coverage-tuning.md
    PYTHONPATH=src python benchmarks/bench_coverage_tuning.py --quick  # fewer pools, prints only

One large forest is fitted per setting (fixed seeds) and cut into ``K`` disjoint pools of
``P`` trees: each pool is what :class:`predstab.TreePool` would have fitted with another seed.
The truth a pool's band claims to cover is the closed form of the infinite pool on the same
test objects and training set; it is estimated by the closed form of the other ``K - 1``
pools' trees (independent of the pool; its own error is about ``1 / sqrt(K - 1)`` of a
pool's). The recommendation's truth is optRF's rule on the 2PL fitted to that truth curve.

* bands: :meth:`predstab.TreePool.closed_form` at 100 resamples (the default of
  :func:`predstab.tune_num_learners`);
* recommendation interval: the learners-only interval of ``tune_num_learners(method=
  "closed_form", interval="learners")``, i.e. the bands' resampled curves refitted
  (``predstab.ensembles._tune._interval``, what that call runs), at 100 resamples.

Settings: *regression*, ``RandomForestRegressor(max_features="sqrt", min_samples_split=5)``
on ``make_regression(250, 20, n_informative=5, noise=60)`` (200 training rows, 50 test
objects); *classifier 85/15*, ``RandomForestClassifier(max_features="sqrt")`` with hard votes
on ``make_classification(350, 10, n_informative=4, weights=[0.85, 0.15], flip_y=0.05)`` (300
training rows, 50 test objects).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

from predstab import TreePool, fit_2pl
from predstab.ensembles._closed_form import closed_form_stats, curve_from_stats
from predstab.ensembles._recommend import Rule
from predstab.ensembles._recommendation_interval import _interval, _learner_object_curves
from predstab.ensembles._tune_config import _default_pool_size

OUT = Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "coverage-tuning.md"
# each classifier setting's replications as run by --classifiers (the page's section is built from
# every setting stored here, so settings can be run one at a time)
CLASS_RESULTS = Path(__file__).resolve().parent / "results_coverage_classifiers.json"
B = 100
OPTRF = Rule("optRF", 0.95, 1e-6, "thousand")  # optRF's rule as tune_num_learners' defaults apply it
# the page's sections, with the item of issue 21 each answers (benchmarks/bench_coverage.py
# lists them on docs/benchmarks/coverage.md, the one page that names every case)
SECTIONS = (
    ("6", "Closed-form bands (`TreePool.closed_form`)",
     "regression forest, imbalanced 85/15 classifier (hard votes), simulated near-tied votes"),
    ("7", 'Recommendation interval (`interval="learners"`)',
     "regression forest, imbalanced 85/15 classifier (hard votes)"),
    ("7", 'Recommendation interval, the default (`interval="learners+objects"`)',
     "regression forest, imbalanced 85/15 classifier (hard votes); truth over new objects and new trees"),
)


def _setting(name, k, size):
    if name == "regression":
        X, y = make_regression(250, 20, n_informative=5, noise=60, random_state=0)
        est, cut = RandomForestRegressor(max_features="sqrt", min_samples_split=5), 200
    else:
        X, y = make_classification(
            350, 10, n_informative=4, weights=[0.85, 0.15], flip_y=0.05, random_state=0
        )
        est, cut = RandomForestClassifier(max_features="sqrt"), 300
    big = TreePool(est, n_learners=k * size, voting="hard", random_state=0, n_jobs=1)
    return big.fit(X[:cut], y[:cut], X[cut : cut + 50], oob=False)


def _truth(preds, n, classifier):
    stats = closed_form_stats(
        preds, None, n, classifier=classifier, voting="hard", rng=np.random.default_rng(0)
    )
    return curve_from_stats(stats, n, "fleiss" if classifier else "icc")


def _recommendation(curve, n, round_to):
    fit = fit_2pl(n, curve)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = fit.recommend(round_to=round_to, minimum=500 if round_to != "none" else 0)
    return rec, fit


def run(name, k, size, band_grid, rec_grid):
    start = time.perf_counter()
    big = _setting(name, k, size)
    classifier = big.is_classifier_
    measure = "fleiss" if classifier else "icc"
    preds = big.test_predictions_
    n_band, n_rec = np.asarray(band_grid, float), np.asarray(rec_grid, float)
    hits, widths, rec_rows = [], [], []
    for j in range(k):
        # the pool: trees j * size ... (j + 1) * size of the big forest
        pool = TreePool.from_predictions(preds[:, j * size : (j + 1) * size], voting="hard", random_state=j,
                                         classes=big.classes_ if classifier else None)
        others = np.delete(preds, np.s_[j * size : (j + 1) * size], axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            truth = _truth(others, n_band, classifier)
            res = pool.closed_form(n_band, measure=measure, n_resamples=B, random_state=j)
        hits.append((res.low <= truth) & (truth <= res.high))
        widths.append(res.high - res.low)
        # the recommendation interval (learners only) on its own grid
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            truth_rec = _truth(others, n_rec, classifier)
            rres = pool.closed_form(n_rec, measure=measure, n_resamples=B, random_state=j)
            resampled = np.minimum(rres.curve + rres.errors, 1.0)
            rounded, unrounded = _interval(resampled, list(rec_grid), OPTRF, B, 0.95)
        t_round, _ = _recommendation(truth_rec, n_rec, "thousand")
        t_raw, _ = _recommendation(truth_rec, n_rec, "none")
        _, fit = _recommendation(rres.curve, n_rec, "none")
        rec_rows.append(
            (
                rounded.low <= t_round <= rounded.high,
                unrounded.low <= t_raw <= unrounded.high,
                rounded.high - rounded.low,
                unrounded.high - unrounded.low,
                t_round,
                t_raw,
                fit.r_squared,
                fit.flattened,
            )
        )
    seconds = time.perf_counter() - start
    return {
        "name": name,
        "k": k,
        "size": size,
        "band_grid": band_grid,
        "rec_grid": rec_grid,
        "coverage": np.mean(hits, axis=0),
        "width": np.mean(widths, axis=0),
        "rec": np.array(rec_rows, dtype=float),
        "seconds": seconds,
    }


def _objects_setting(name, n_rows):
    """The regression / classifier setting with ``n_rows`` objects beyond the training rows."""
    if name == "regression":
        X, y = make_regression(200 + n_rows, 20, n_informative=5, noise=60, random_state=1)
        return RandomForestRegressor(max_features="sqrt", min_samples_split=5), X, y, 200
    X, y = make_classification(300 + n_rows, 10, n_informative=4, weights=[0.85, 0.15], flip_y=0.05,
                               random_state=1)
    return RandomForestClassifier(max_features="sqrt"), X, y, 300


def run_objects(name, k, size, rec_grid, n_truth=3000, truth_trees=2000):
    """The default recommendation interval, ``interval="learners+objects"``: K pools of P trees,
    each on its own 50 new test objects (same training set); the truth is optRF's rule on the
    closed-form curve of ``truth_trees`` other trees over ``n_truth`` other objects of the same
    distribution (new trees and new objects). The interval is what ``tune_num_learners`` runs:
    ``_learner_object_curves`` (objects and learners resampled) then ``_interval``."""
    from types import SimpleNamespace

    start = time.perf_counter()
    est, X, y, cut = _objects_setting(name, 50 * k + n_truth)
    classifier = name != "regression"
    measure = "fleiss" if classifier else "icc"
    n_rec = np.asarray(rec_grid, float)
    truth_pool = TreePool(est, n_learners=truth_trees, voting="hard", random_state=10_000, n_jobs=1)
    truth_pool.fit(X[:cut], y[:cut], X[cut + 50 * k:], oob=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        truth_curve = _truth(truth_pool.test_predictions_, n_rec, classifier)
    t_round, _ = _recommendation(truth_curve, n_rec, "thousand")
    t_raw, _ = _recommendation(truth_curve, n_rec, "none")
    rows = []
    for j in range(k):
        pool = TreePool(est, n_learners=size, voting="hard", random_state=j, n_jobs=1)
        pool.fit(X[:cut], y[:cut], X[cut + 50 * j: cut + 50 * (j + 1)], oob=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            curve = pool.closed_form(n_rec, measure=measure).curve
            resampled = _learner_object_curves(pool, list(rec_grid), measure, SimpleNamespace(baseline=None),
                                               curve, B, np.random.default_rng(j))
            rounded, unrounded = _interval(resampled, list(rec_grid), OPTRF, B, 0.95)
            _, fit = _recommendation(curve, n_rec, "none")
        rows.append((rounded.low <= t_round <= rounded.high, unrounded.low <= t_raw <= unrounded.high,
                     rounded.high - rounded.low, unrounded.high - unrounded.low, t_round, t_raw,
                     fit.r_squared, fit.flattened, curve[-1]))
    return {"name": name, "k": k, "size": size, "rec_grid": rec_grid, "rec": np.array(rows, dtype=float),
            "seconds": time.perf_counter() - start}


CLASSIFIERS = {
    # name: make_classification keywords (300 training rows + test objects, 10 features, 4 informative)
    "balanced": {"flip_y": 0.01},
    "3 classes": {"n_classes": 3, "n_clusters_per_class": 1, "flip_y": 0.01},
    "label noise 0.1": {"flip_y": 0.1},
}
CLASS_GRID = (5, 10, 20, 40, 81)  # the setting of issue 34, item 10: grid 5-81


def run_classifier(name, k, rec_grid=CLASS_GRID, n_truth=3000, truth_trees=2000, reservoir=10_000, pool=1000,
                   progress=None, done=None):
    """The recommendation interval of ``tune_num_learners(method="closed_form")`` with its defaults
    (100 resamples, ``interval="learners+objects"``, hard votes, Fleiss' kappa, optRF's rule) on K
    replications, each with its own 50 new test objects, its own seed and its own pool of ``pool``
    trees (the default pool for this grid) drawn at random from ``reservoir`` trees of one forest
    on one training set (the trees are i.i.d. given the training set, so a random subset of a large
    forest is a pool another seed would have grown; two replications share 10 % of their trees
    on average). The truth is optRF's rule on the closed form of ``truth_trees`` other trees over
    ``n_truth`` other objects. Each replication records whether the result disclaims its interval:
    no interval, a recommendation it does not trust (``reliable`` False), or the words "not a
    95 % interval" in ``interval_covers``. ``progress`` (if given) receives the result so far
    every 5 replications (a long run stopped early keeps what it measured); ``done`` (a stored
    partial result of the same setting) resumes it: its replications are kept and the run goes on
    from the next seed (replication j's pool and objects depend on j only)."""
    from predstab import tune_num_learners
    from predstab.ensembles._forest import learner_predictions

    start = time.perf_counter()
    load_start = os.getloadavg()[0]
    X, y = make_classification(300 + 50 * k + n_truth, 10, n_informative=4, n_redundant=0, random_state=1,
                               **CLASSIFIERS[name])
    est, cut = RandomForestClassifier(max_features="sqrt"), 300
    n_rec = np.asarray(rec_grid, float)
    truth_pool = TreePool(est, n_learners=truth_trees, voting="hard", random_state=10_000, n_jobs=1)
    truth_pool.fit(X[:cut], y[:cut], X[cut + 50 * k:], oob=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        truth_curve = _truth(truth_pool.test_predictions_, n_rec, True)
    t_round, _ = _recommendation(truth_curve, n_rec, "thousand")
    t_raw, _ = _recommendation(truth_curve, n_rec, "none")
    forest = RandomForestClassifier(max_features="sqrt", n_estimators=reservoir, random_state=20_000)
    forest.fit(X[:cut], y[:cut])
    trees = forest.estimators_
    rows = [] if done is None else [tuple(row) for row in done["rec"]]
    earlier = 0.0 if done is None else done["seconds"]

    def result():
        return {"name": f"classifier, {name}", "k": k, "size": pool, "rec_grid": rec_grid,
                "rec": np.array(rows, dtype=float), "seconds": earlier + time.perf_counter() - start,
                "truth": (t_round, t_raw), "load": (load_start, os.getloadavg()[0])}

    for j in range(len(rows), k):
        rng = np.random.default_rng(j)
        forest.estimators_ = [trees[t] for t in np.sort(rng.choice(reservoir, pool, replace=False))]
        probs = learner_predictions(forest, X[cut + 50 * j: cut + 50 * (j + 1)], dtype=np.float32)
        members = TreePool.from_predictions(probs, classes=forest.classes_, voting="hard", random_state=j)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = tune_num_learners(members, method="closed_form", grid=rec_grid, measures=("fleiss",),
                                    rule="optRF", random_state=j)
        rounded, unrounded = res.confidence_interval, res.unrounded_interval
        disclaimed = (not np.isfinite(unrounded.low) or not res.reliable
                      or "not a 95 % interval" in res.interval_covers)
        curve = res.table["fleiss"].to_numpy(float)
        rows.append((rounded.low <= t_round <= rounded.high, unrounded.low <= t_raw <= unrounded.high,
                     rounded.high - rounded.low, unrounded.high - unrounded.low, t_round, t_raw,
                     res.fits["fleiss"].r_squared, res.fits["fleiss"].flattened, curve[-1], disclaimed,
                     res.pool_size))
        if (j + 1) % 5 == 0 and progress is not None and j + 1 < k:  # stored every 5 replications
            progress(result())
        if (j + 1) % 20 == 0:
            rec = np.array(rows, dtype=float)
            print(f"  {name}: {j + 1} replications, coverage {rec[:, 1].mean():.3f}, not disclaimed "
                  f"{(rec[:, 9] == 0).sum()} covering {rec[rec[:, 9] == 0, 1].mean():.3f} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    forest.estimators_ = trees
    return result()


CLASS_START = "<!-- classifier recommendation intervals (issue 34, item 10): written by --classifiers -->"
CLASS_END = "<!-- end of the classifier recommendation intervals -->"


def _classifier_section(results, kept_rows=()):
    """The page's section from the settings' results (``kept_rows``: table lines of settings whose
    replications are not stored, copied from the page as they were)."""
    runs = "; ".join(
        f"{r['name'].removeprefix('classifier, ')}: {len(r['rec'])} replications, {r['seconds']:.0f} s"
        + (f" at load {r['load'][0]:.1f} -> {r['load'][1]:.1f} (2 cores, shared)" if r.get("load") else "")
        for r in results)
    lines = [CLASS_START, "",
             "## Recommendation interval of classifiers, as `tune_num_learners` reports it", "",
             "`python benchmarks/bench_coverage_tuning.py --classifiers 200 [--settings ...]` (fixed seeds; "
             f"{runs}"
             + ("; the other rows from an earlier run of the same command, whose replications are not "
                "stored, measured on the logit scale, before the error of classes moved to "
                "sqrt(1 - stability)"
                if kept_rows else "")
             + "). `tune_num_learners(RandomForestClassifier(max_features=\"sqrt\"), ..., "
             f"method=\"closed_form\", grid={tuple(int(v) for v in results[0]['rec_grid'])}, "
             "measures=(\"fleiss\",))` with "
             "its defaults (pool, 100 resamples, `interval=\"learners+objects\"`, hard votes; each "
             "resample's error against the bootstrap world's exact curve moved onto the pool's curve on "
             "the scale sqrt(1 - stability)): each "
             "replication its own seed, its own 50 new test objects and its own pool of 1,000 trees (the "
             "default pool for this grid) drawn at random from 10,000 trees of one forest; one training "
             "set of 300 rows "
             "(`make_classification(..., 10 features, n_informative=4, n_redundant=0, random_state=1)`: "
             "*balanced* `flip_y=0.01`; *3 classes* `n_classes=3, n_clusters_per_class=1, flip_y=0.01`; "
             "*label noise 0.1* `flip_y=0.1`). Truth: optRF's rule on the closed form of 2,000 other trees "
             "over 3,000 other objects. A result **disclaims** its interval when it has none, does not trust "
             "its recommendation (`reliable` False: poor fit, or the curve has not flattened), or says "
             "\"not a 95 % interval\" (the curve reaches 0.99 within the grid). Coverage +- its binomial "
             "standard error (one Monte Carlo error); bold: below 0.93 where not disclaimed.", "",
             "| setting | replications | pool | true recommendation (rounded / unrounded) | coverage, all "
             "(rounded / unrounded) | replications not disclaimed | their coverage (unrounded) | their "
             "coverage (rounded) | median width, unrounded |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    short = []
    rows = {}
    for r in results:
        rec = r["rec"]
        kept = rec[:, 9] == 0
        c_all, k = rec[:, 1].mean(), len(rec)
        c_kept = rec[kept, 1].mean() if kept.any() else float("nan")
        se_kept = np.sqrt(c_kept * (1 - c_kept) / max(kept.sum(), 1))
        pools = sorted({int(v) for v in rec[:, 10]})
        pool = f"{pools[0]:,}" if len(pools) == 1 else f"{pools[0]:,} - {pools[-1]:,}"
        cell = f"{c_kept:.3f} +- {se_kept:.3f}"
        if kept.any() and c_kept < 0.93:
            cell = f"**{cell}**"
            short.append(f"{r['name']} ({c_kept:.3f})")
        rows[r["name"]] = (
            f"| {r['name']} | {k} | {pool} | {r['truth'][0]:.0f} / {r['truth'][1]:.0f} | "
            f"{rec[:, 0].mean():.3f} / {c_all:.3f} +- {np.sqrt(c_all * (1 - c_all) / k):.3f} | "
            f"{kept.sum()} | {cell} | {rec[kept, 0].mean() if kept.any() else float('nan'):.3f} | "
            f"{np.nanmedian(rec[kept, 3]) if kept.any() else float('nan'):.0f} |")
    for line in kept_rows:
        name = line.split("|")[1].strip()
        rows.setdefault(name, line)
        if "**" in line.split("|")[7]:
            short.append(f"{name} ({line.split('|')[7].strip(' *').split(' ')[0]})")
    lines += [rows[f"classifier, {name}"] for name in CLASSIFIERS if f"classifier, {name}" in rows]
    lines += ["", "Where the result does not disclaim its interval the goal is a coverage of at least 0.93: "
              + ("reached in every setting above." if not short
                 else "**missed** for " + "; ".join(short) + "."),
              "", CLASS_END]
    return lines


def _stored_classifier_results(results):
    """``results`` merged into :data:`CLASS_RESULTS` (by setting), and every stored setting's result."""
    stored = json.loads(CLASS_RESULTS.read_text(encoding="utf-8")) if CLASS_RESULTS.exists() else {}
    for r in results:
        stored[r["name"]] = {"k": r["k"], "size": r["size"], "rec_grid": [int(v) for v in r["rec_grid"]],
                             "rec": r["rec"].tolist(), "seconds": r["seconds"],
                             "truth": [float(v) for v in r["truth"]], "load": list(r["load"])}
    CLASS_RESULTS.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
    return [{**v, "name": name, "rec": np.array(v["rec"], dtype=float)} for name, v in stored.items()]


def write_classifier_section(results):
    """Rewrites the page's classifier section from every stored setting; rows of settings run before
    the replications were stored are kept from the page."""
    text = OUT.read_text(encoding="utf-8")
    everything = _stored_classifier_results(results)
    names = {r["name"] for r in everything}
    old = text.split(CLASS_START, 1)[1].split(CLASS_END, 1)[0] if CLASS_START in text else ""
    kept_rows = [line for line in old.splitlines()
                 if line.startswith("| classifier, ") and line.split("|")[1].strip() not in names]
    section = "\n".join(_classifier_section(everything, kept_rows))
    if CLASS_START in text:
        head, rest = text.split(CLASS_START, 1)
        text = head + section + rest.split(CLASS_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    OUT.write_text(text, encoding="utf-8")


def run_simulated(k, size, band_grid):
    """Simulated hard votes of an 85/15 classifier with a few near-tied objects (exact truth:
    Binomial votes with the known shares; learners correlated across objects by a Gaussian
    copula), the setting of tests/ensembles/test_tuning_coverage.py with more pools; each pool through
    ``TreePool.from_predictions`` (one-hot votes) and its ``closed_form``."""
    from scipy import stats

    start = time.perf_counter()
    q = np.r_[np.linspace(0.02, 0.3, 22), 0.42, 0.56, 0.65, 0.8, 0.9]
    n = np.asarray(band_grid)
    p1 = stats.binom.sf(n[:, None] // 2, n[:, None], q[None])
    share = p1.mean(axis=1)
    truth = 1 - (1 - np.mean(p1**2 + (1 - p1) ** 2, axis=1)) / (1 - share**2 - (1 - share) ** 2)
    hits, widths = [], []
    for j in range(k):
        rng = np.random.default_rng([22, j])
        latent = 0.5 * rng.normal(size=(1, size)) + np.sqrt(0.75) * rng.normal(size=(len(q), size))
        ones = latent < stats.norm.ppf(q)[:, None]
        preds = np.stack([~ones, ones], axis=2).astype(float)
        pool = TreePool.from_predictions(preds, voting="hard", random_state=j)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pool.closed_form(n.astype(float), measure="fleiss", n_resamples=B, random_state=j)
        hits.append((res.low <= truth) & (truth <= res.high))
        widths.append(res.high - res.low)
    name = "simulated votes, near ties" + ("" if size < 4 * max(band_grid) else
                                           ", P = 4 x max(grid)" if size == 4 * max(band_grid) else
                                           ", P = 10 x max(grid) (the default for this grid)")
    return {"name": name, "k": k, "size": size, "band_grid": band_grid,
            "coverage": np.mean(hits, axis=0), "width": np.mean(widths, axis=0), "rec": None,
            "seconds": time.perf_counter() - start}


def _rec_rows(results):
    lines = []
    for r in results:
        if r["rec"] is None:
            continue
        rec = r["rec"]
        grid = ", ".join(map(str, r["rec_grid"]))
        lines.append(
            f"| {r['name']} | {grid} | {r['k']} | {rec[:, 0].mean():.3f} | {rec[:, 1].mean():.3f} | "
            f"{np.isfinite(rec[:, 3]).mean():.2f} | "
            f"{np.nanmedian(rec[:, 2]):.0f} | {np.nanmedian(rec[:, 3]):.0f} | {np.median(rec[:, 4]):.0f} / "
            f"{np.median(rec[:, 5]):.0f} | {np.nanmedian(rec[:, 6]):.3f} | {rec[:, 7].mean():.2f} |"
        )
    return lines


_REC_HEADER = [
    "| setting | grid | pools | coverage (rounded) | coverage (unrounded) | pools with an interval | "
    "median width (rounded) | median width (unrounded) | true recommendation (rounded / unrounded) | "
    "median R^2 | flattened |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
]


def _rec_verdict(results):
    short = [f"{r['name']} ({what}: {r['rec'][:, col].mean():.3f})" for r in results if r["rec"] is not None
             for col, what in ((0, "rounded"), (1, "unrounded")) if r["rec"][:, col].mean() < 0.93]
    return ("Coverage of at least 0.93 is reached in every setting above." if not short else
            "Coverage of 0.93 is **not reached** for " + "; ".join(short) + ".")


def _standard_errors(results):
    """The binomial standard error of each setting's (unrounded) coverage from its pools."""
    parts = []
    for r in results:
        c, k = r["rec"][:, 1].mean(), len(r["rec"])
        parts.append(f"{r['name']} {c:.3f} +- {np.sqrt(c * (1 - c) / k):.3f}")
    return "Unrounded coverage +- its binomial standard error: " + "; ".join(parts) + "."


def _by_curve_end(results):
    lines = []
    for r in results:
        rec = r["rec"]
        flat = rec[:, 8] >= 0.99
        cells = []
        for part in (~flat, flat):
            cells += [f"{part.sum()}", "-" if not part.any() else
                      f"{rec[part, 0].mean():.3f} / {rec[part, 1].mean():.3f}"]
        lines.append(f"| {r['name']} | " + " | ".join(cells) + " |")
    return lines


def _page(results, seconds, objects=()):
    lines = [
        "# Coverage of the tuning intervals (closed-form bands, recommendation)",
        "",
        f"Generated by `PYTHONPATH=src python benchmarks/bench_coverage_tuning.py` (fixed seeds; "
        f"{seconds:.0f} s on this machine). Do not edit by hand.",
        "",
        "What is covered: **learners only** -- the stability of forests of n trees on *these* test "
        "objects, grown on *this* training set, the randomness being the trees'. One large forest per "
        "setting is cut into K disjoint pools of P trees; a pool's truth is the closed form of the other "
        "K - 1 pools' trees (the infinite-pool value, independent of the pool). Nominal level 95 %, "
        f"{B} bootstrap resamples (the default of `tune_num_learners`). The binomial standard error of "
        "a coverage from K pools is sqrt(0.95 x 0.05 / K) (0.03 for 50 pools).",
        "",
        'Settings: *regression*, `RandomForestRegressor(max_features="sqrt", min_samples_split=5)` on '
        "`make_regression(250, 20, n_informative=5, noise=60)` (200 training rows, 50 test objects); "
        '*classifier 85/15*, `RandomForestClassifier(max_features="sqrt")`, hard votes, on '
        "`make_classification(350, 10, n_informative=4, weights=[0.85, 0.15], flip_y=0.05)` (300 training "
        "rows, 50 test objects); *simulated votes, near ties*, hard votes of 27 objects with known vote "
        "shares (22 between 0.02 and 0.3, then 0.42, 0.56, 0.65, 0.8, 0.9; learners correlated across "
        "objects), whose truth is exact (Binomial votes), pools of 200, 400 and 1000 learners.",
        "",
        f"## {SECTIONS[0][1]}",
        "",
        "| setting | pool P | pools K | n | share of P | coverage | mean width |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    short = []
    quarter = {f"{r['name']} (P = {r['size']})":
               min(c for n, c in zip(r["band_grid"], r["coverage"], strict=True) if n <= r["size"] / 4)
               for r in results}
    tenth = {f"{r['name']} (P = {r['size']})":
             min(c for n, c in zip(r["band_grid"], r["coverage"], strict=True) if n <= r["size"] / 10)
             for r in results if any(n <= r["size"] / 10 for n in r["band_grid"])}
    for r in results:
        for n, c, w in zip(r["band_grid"], r["coverage"], r["width"], strict=True):
            lines.append(
                f"| {r['name']} | {r['size']} | {r['k']} | {n} | {n / r['size']:.2f} | {c:.3f} | {w:.4f} |"
            )
            if c < 0.93:
                short.append(f"{r['name']} at n = {n} of a pool of {r['size']} (coverage {c:.3f})")
    lines += [
        "",
        "Nominal coverage (at least 0.93 measured) is "
        + ("reached everywhere above." if not short else "**not reached** for " + "; ".join(short) + "."),
        "For classes, the closed form at n = P / 2 is the split of the whole pool into two forests: "
        "it is unbiased but nearly always below its mean near a tied vote; "
        "`tune_num_learners(method=\"closed_form\")` gives a classifier max(1000, 10 x max(grid)) learners "
        "by default (the classifier rows above: its default for that grid) and warns below 10 x max(grid) "
        "when `pool_size` is given. The lowest coverage at n <= P / 4: "
        + "; ".join(f"{k} {v:.3f}" for k, v in quarter.items()) + ". "
        + ("So n <= P / 4 reaches 0.93 in every setting here. " if min(quarter.values()) >= 0.93 else
           "So n <= P / 4 does **not** reach 0.93 in every setting here (standard error of a coverage "
           "near 0.93: " + ", ".join(sorted({f"{np.sqrt(0.93 * 0.07 / r['k']):.3f} from {r['k']} pools"
                                             for r in results})) + "). ")
        + "The lowest coverage at n <= P / 10 (the default pool's range): "
        + "; ".join(f"{k} {v:.3f}" for k, v in tenth.items()) + ". "
        + ("So the default pool reaches 0.93 in every setting here." if min(tenth.values()) >= 0.93 else
           "So even the default pool does **not** reach 0.93 in every setting here."),
        "",
        f"## {SECTIONS[1][1]}",
        "",
        "optRF's rule on the 2PL fitted to each resampled curve (the bands' resamples), rounded to "
        "thousands (at least 500) and unrounded; the truth is the rule on the truth curve.",
        "",
        *_REC_HEADER,
    ]
    lines += _rec_rows(results)
    lines += [
        "",
        "The rounded interval is often a single value (width 0): rounding to thousands makes the "
        "recommendation discrete, and the interval then covers the rounded truth or misses it by one "
        "step. Where the coverage above is below 0.93, the interval is not a 95 % interval in that "
        "setting; `TuningResult` prints its width and says when the fit is poor or the curve has not "
        "flattened (then the interval is not trusted). " + _rec_verdict(results),
    ]
    if objects:
        lines += [
            "",
            f"## {SECTIONS[2][1]}",
            "",
            "What `tune_num_learners(method=\"closed_form\")` reports by default: the test objects and the "
            "pool's learners resampled together (`_learner_object_curves`: each resample's error against "
            "the bootstrap world's exact curve moved onto the pool's curve, for metric predictions on the "
            "logit scale, where the 2PL is a line in log n, for classes on sqrt(1 - stability), a count's "
            "variance-stabilising scale; then the same rule on each resampled curve; "
            f"{B} resamples). Each of K pools of P trees (the default pool of "
            "`tune_num_learners(method=\"closed_form\")`) predicts its own 50 new test objects "
            "(one training set; `make_regression` / `make_classification` as above with `random_state=1`); "
            "the truth is optRF's rule on the closed form of 2,000 other trees over 3,000 other objects of "
            "the same distribution: new trees and new test objects.",
            "",
            *_REC_HEADER,
            *_rec_rows(objects),
            "",
            "A pool without an interval (NaN: the 2PL fits of its curve or of its resampled curves "
            "failed) counts as a miss above; widths and R^2 are medians over the pools with an interval "
            "and a fit. " + _standard_errors(objects) + " " + _rec_verdict(objects),
            "",
            "By the pool's curve at the largest grid value (the closed form at max(grid)):",
            "",
            "| setting | pools with stability < 0.99 there | their coverage (rounded / unrounded) | "
            "pools with stability >= 0.99 | their coverage (rounded / unrounded) |",
            "|---|---:|---:|---:|---:|",
            *_by_curve_end(objects),
            "",
            "A curve that is already near 1 at the largest grid value (a classifier whose test objects "
            "hold few near-tied votes) has a recommendation set by the rare objects whose votes are near "
            "a tie: a sample of 50 test objects may hold none of them, and no resampling of those objects "
            "makes them up. There the interval is too low (it misses the truth from above) and is not a "
            "95 % interval; `TuningResult` says so when the primary curve reaches 0.99 within the grid. "
            "Before the logit scale (the error added on the stability scale), this section measured "
            "0.875 (regression, unrounded) and 0.700 (classifier) over 200 pools, median widths 1065 and "
            "9540 trees.",
        ]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pools", type=int, default=200,
                        help="pools per setting of the learners+objects recommendation interval")
    parser.add_argument("--classifiers", type=int, metavar="K", default=0,
                        help="only the classifier recommendation intervals (issue 34, item 10): K "
                             "replications per setting; rewrites their section of the page")
    parser.add_argument("--settings", nargs="+", default=list(CLASSIFIERS), choices=list(CLASSIFIERS))
    args = parser.parse_args()
    start = time.perf_counter()
    if args.classifiers:
        results = []
        stored = json.loads(CLASS_RESULTS.read_text(encoding="utf-8")) if CLASS_RESULTS.exists() else {}
        for name in args.settings:  # each setting's section as soon as it is done
            partial = (lambda r: write_classifier_section([r])) if args.classifiers >= 200 else None
            done = stored.get(f"classifier, {name}")
            if done is not None and (len(done["rec"]) >= args.classifiers
                                     or tuple(done["rec_grid"]) != CLASS_GRID):
                done = None  # complete (or another grid): run again
            if done is not None:
                print(f"  {name}: resuming after {len(done['rec'])} stored replications", flush=True)
            results.append(run_classifier(name, args.classifiers, progress=partial, done=done))
            print("\n".join(_classifier_section(results)), flush=True)
            if args.classifiers >= 200:  # stored and on the page as soon as a setting is done
                write_classifier_section(results[-1:])
        return
    k_reg, k_clf = (10, 10) if args.quick else (50, 40)
    clf_grid = (10, 25, 50, 100, 200)
    results = [
        run("regression", k_reg, 300, (1, 4, 16, 64, 150), (5, 10, 20, 40, 80)),
        # the classifier's pool: tune_num_learners' default for this grid (at least 1000 learners
        # and 10 x max(grid)); the simulated votes at P = 2 x, 4 x and 10 x max(grid)
        run("classifier 85/15", k_clf, _default_pool_size(clf_grid, 2, "closed_form", True), clf_grid,
            clf_grid),
        run_simulated(60 if args.quick else 1000, 200, (10, 25, 50, 75, 100)),
        run_simulated(60 if args.quick else 1000, 400, (10, 25, 50, 75, 100)),
        run_simulated(60 if args.quick else 1000, 1000, (10, 25, 50, 75, 100)),
    ]
    # pools of tune_num_learners' default size for method="closed_form" (n_repeats = 2, the
    # smallest allowed: at least 1000 learners, 10 x max(grid) for a classifier)
    k_obj = 3 if args.quick else args.pools
    reg_grid = (5, 10, 20, 40, 80)
    objects = [
        run_objects("regression", k_obj, _default_pool_size(reg_grid, 2, "closed_form"), reg_grid),
        run_objects("classifier 85/15", k_obj, _default_pool_size(clf_grid, 2, "closed_form", True),
                    clf_grid),
    ]
    seconds = time.perf_counter() - start
    page = _page(results, seconds, objects)
    print(page)
    if not args.quick:
        OUT.write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
