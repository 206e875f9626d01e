"""Many items in one call: a stack (n_items, n_objects, n_raters) against a loop over the items.

Usage::

    PYTHONPATH=src python benchmarks/bench_stacks.py           # writes docs/benchmarks/stacks.md
    PYTHONPATH=src python benchmarks/bench_stacks.py --quick   # 1e4 items, prints only

For ICC, Fleiss' kappa and Krippendorff's alpha, on 1e5 items of 20 objects x 3 raters (fixed
seed): the time of one stacked call, of a loop over the items with predstab's 2-D function, and
of a loop with the reference Python implementation (pingouin's ``intraclass_corr``,
statsmodels' ``fleiss_kappa``, the ``krippendorff`` package). The loops run over a subset of the
items and are extrapolated linearly (per-item cost times the number of items), which is what
they are: a loop's cost is linear in its length. Every timing is the best of ``--repeat`` runs,
all in the same process and run. The stacked values are checked against each loop's on the
subset.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import predstab

OUT = Path(__file__).resolve().parents[1] / "docs" / "benchmarks" / "stacks.md"


def best_of(repeat, func):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return min(times), out


def loop_time(func, items, repeat):
    """Best time of a loop of ``func`` over ``items``, and its values."""
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.array([func(item) for item in items])
    return best_of(repeat, run)


def pingouin_icc1(item):
    import pingouin

    n, k = item.shape
    long = pd.DataFrame({"targets": np.repeat(np.arange(n), k), "raters": np.tile(np.arange(k), n),
                         "ratings": item.ravel()})
    table = pingouin.intraclass_corr(long, targets="targets", raters="raters", ratings="ratings")
    return table.loc[table["Type"] == "ICC(1,1)", "ICC"].item()


def statsmodels_fleiss(item):
    from statsmodels.stats import inter_rater

    return inter_rater.fleiss_kappa(inter_rater.aggregate_raters(item)[0], method="fleiss")


def krippendorff_package(item):
    import krippendorff

    return krippendorff.alpha(reliability_data=item.T, level_of_measurement="nominal")


def case(label, stacked, stack, predstab_loop, reference, reference_name, n_predstab, n_reference, repeat):
    n_items = stack.shape[0]
    t_stack, res = best_of(repeat, lambda: stacked(stack))
    t_loop, loop_values = loop_time(predstab_loop, stack[:n_predstab], repeat)
    t_ref, ref_values = loop_time(reference, stack[:n_reference], 1 if n_reference >= 100 else repeat)
    diff_loop = float(np.nanmax(np.abs(res.value[:n_predstab] - loop_values)))
    diff_ref = float(np.nanmax(np.abs(res.value[:n_reference] - ref_values)))
    loop_full = t_loop * n_items / n_predstab
    ref_full = t_ref * n_items / n_reference
    return {
        "coefficient": label, "items": n_items, "stacked call (s)": t_stack,
        f"loop over predstab (s, from {n_predstab} items)": loop_full,
        "reference loop (s)": ref_full, "reference": f"{reference_name}, from {n_reference} items",
        "x predstab loop": loop_full / t_stack, "x reference loop": ref_full / t_stack,
        "max diff vs predstab loop": diff_loop, "max diff vs reference": diff_ref,
    }


def run(n_items, repeat):
    rng = np.random.default_rng(20261204)
    numeric = rng.normal(size=(n_items, 20, 3)) + 2 * rng.normal(size=(n_items, 20, 1))
    truth = rng.integers(0, 3, size=(n_items, 20, 1))
    codes = np.where(rng.random((n_items, 20, 3)) < 0.7, truth, rng.integers(0, 3, size=(n_items, 20, 3)))

    def value_of(func, **kw):
        return lambda item: func(item, **kw).value

    rows = [
        case("ICC(1) (icc)", predstab.icc, numeric, value_of(predstab.icc), pingouin_icc1,
             "pingouin.intraclass_corr (long format built per item)", 2000, 200, repeat),
        case("Fleiss' kappa", predstab.fleiss_kappa, codes, value_of(predstab.fleiss_kappa),
             statsmodels_fleiss, "statsmodels fleiss_kappa(aggregate_raters(x))", 2000, 2000, repeat),
        case("Krippendorff's alpha (nominal)", predstab.krippendorff_alpha, codes,
             value_of(predstab.krippendorff_alpha), krippendorff_package, "krippendorff.alpha", 2000, 2000,
             repeat),
    ]
    return pd.DataFrame(rows)


def agreement_forms(n_items, repeat):
    """The other ICC forms: time of the stacked call only (they share the mean squares)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(n_items, 20, 3)) + 2 * rng.normal(size=(n_items, 20, 1))
    out = []
    for model, type_, unit in [("oneway", "consistency", "single"), ("twoway", "consistency", "single"),
                               ("twoway", "agreement", "single"), ("twoway", "agreement", "average")]:
        t, res = best_of(repeat, lambda m=model, t=type_, u=unit: predstab.icc(x, model=m, type=t, unit=u))
        out.append({"form": str(res.name), "items": n_items, "stacked call (s)": t})
    return pd.DataFrame(out)


def dask_rows(n_items, repeat):
    """ICC(1) of the same stack held as a Dask array, on a LocalCluster of 2 worker processes."""
    import dask.array as da
    from dask import distributed

    x = np.random.default_rng(2).normal(size=(n_items, 20, 3))
    t_numpy, want = best_of(repeat, lambda: predstab.icc(x))
    rows = [{"input": "numpy array", "chunks of items": "-", "time (s)": t_numpy, "max diff": 0.0}]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        for chunk in (n_items // 10, n_items // 2):
            lazy = da.from_array(x, chunks=(chunk, 20, 3))
            t, got = best_of(repeat, lambda lazy=lazy: predstab.icc(lazy))
            rows.append({"input": "dask array, LocalCluster(2 workers)", "chunks of items": chunk,
                         "time (s)": t, "max diff": float(np.max(np.abs(got.value - want.value)))})
    return pd.DataFrame(rows)


def _md(frame):
    def fmt(v):
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.1e}"
        return str(v)
    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1e4 items, print only")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    n_items = 10_000 if args.quick else 100_000
    load_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    table = run(n_items, args.repeat)
    forms = agreement_forms(n_items, args.repeat)
    on_dask = dask_rows(n_items, args.repeat)
    load_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(table.to_string())
    print(forms.to_string())
    print(on_dask.to_string())
    if args.quick:
        return
    import pingouin
    import statsmodels

    text = [
        "# Stacks: many items in one call", "",
        "Generated by `PYTHONPATH=src python benchmarks/bench_stacks.py` (fixed seed). Do not edit by "
        "hand.", "",
        f"{n_items} items of 20 objects x 3 raters each (normal ratings with an object effect; categories "
        "0, 1, 2 for the kappas, 70 % of the ratings equal to the object's category). *Stacked call*: one "
        "call of the predstab function on the (items, objects, raters) array. *Loops*: the 2-D function "
        "called once per item, timed on the first items and **extrapolated linearly** to all of them "
        "(the number of items timed is in the column name). All timings are the best of "
        f"{args.repeat} runs in the same process and run (the reference loops over 200 items or more: one "
        "run). *max diff* is the largest absolute difference between the stacked values and the "
        "loop's on the items the loop ran.", "",
        "The machine is shared with other jobs and was loaded while this ran, so the absolute times are "
        "pessimistic and the ratios approximate:", "",
        f"- before: `{load_before}`", f"- after: `{load_after}`",
        f"- {platform.processor() or platform.machine()}, Python {platform.python_version()}, numpy "
        f"{np.__version__}, pingouin {pingouin.__version__}, statsmodels {statsmodels.__version__}", "",
        _md(table), "",
        "## ICC forms", "",
        "The stacked call of each form (the mean squares are shared; the agreement forms also evaluate "
        "two F quantiles with per-item Satterthwaite degrees of freedom, which dominates their time).", "",
        _md(forms), "",
        "## Dask", "",
        "ICC(1) of a stack held as a Dask array (`dask.array.from_array`), computed chunk by chunk on a "
        "`LocalCluster` of 2 worker processes: one task per chunk of items, each holding one chunk; the "
        "result is computed (numpy arrays), the same numbers as for the numpy stack. With the data "
        "already in memory this only adds the scheduler's overhead; its use is a stack larger than "
        "memory, read chunk by chunk (e.g. from zarr). The chunks are sent to the workers by pickle, "
        "included in the times.", "",
        _md(on_dask), "",
    ]
    OUT.write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
