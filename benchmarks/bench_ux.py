"""Speed of the user-facing layer: the demo job and the stability scorer.

Run: ``PYTHONPATH=src python benchmarks/bench_ux.py``. Prints, measured in this process:

1. ``predstab demo`` (the README's main job) end to end, in seconds (CI needs well under a minute);
2. ``make_stability_scorer`` on a fitted random forest (replicate forests drawn from its own
   trees, no refits) against the same stability measured by refitting the forest with new seeds
   (what a scorer would otherwise have to do), with the ratio.
"""

from __future__ import annotations

import io
import os
import tempfile
import time

import numpy as np


def bench_demo():
    from predstab.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        code = main(["demo", "--quiet", "--out", os.path.join(tmp, "demo")], stdout=io.StringIO())
        seconds = time.perf_counter() - start
    assert code == 0
    print(f"predstab demo (diabetes, grid 2..250 trees, 10 forests each, pool): {seconds:6.2f} s")


def bench_scorer(n_trees=200, n_repeats=10):
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import RandomForestRegressor

    import predstab

    X, y = load_diabetes(return_X_y=True)
    X_train, y_train, X_val, y_val = X[:350], y[:350], X[350:], y[350:]
    forest = RandomForestRegressor(n_estimators=n_trees, max_features="sqrt", random_state=0, n_jobs=1)
    forest.fit(X_train, y_train)

    scorer = predstab.make_stability_scorer("phi", n_repeats=n_repeats)
    start = time.perf_counter()
    from_trees = scorer(forest, X_val, y_val)
    t_trees = time.perf_counter() - start

    start = time.perf_counter()
    rep = predstab.repeated_predictions(forest, X_train, y_train, X_val, n_repeats=n_repeats, baseline=None,
                                        random_state=0, n_jobs=1)
    from_refits = predstab.phi(rep.test, y_val).value
    t_refits = time.perf_counter() - start
    print(f"phi scorer, {n_trees}-tree forest, {n_repeats} replicates: fitted trees {t_trees * 1e3:7.1f} ms "
          f"(phi {from_trees:.4f}) | {n_repeats} refits {t_refits:6.2f} s (phi {from_refits:.4f}) | "
          f"ratio {t_refits / t_trees:5.1f}x")


if __name__ == "__main__":
    np.seterr(all="ignore")
    bench_scorer()
    bench_demo()
