"""Issue 14's "speed and peers" table in one run: Cohen's weighted kappa (vs scikit-learn), Gwet's AC1
(vs irrcac), Kendall's W (vs pyirr) and Cronbach's alpha (vs pingouin), each with the largest
difference in value from the peer and the load average of the machine.

Run from the project root::

    PYTHONPATH=src python benchmarks/bench_agreement2.py

Peers: ``scikit-learn`` (``cohen_kappa_score``), ``irrcac`` (a Python port of irrCAC), ``pyirr``
(a port of irr 0.84.1; its pins are old too: ``pip install --no-deps pyirr``) and ``pingouin``.
irrcac 0.4.4 pins scipy==1.12.0, pandas<3 and coverage<7, so it is not in the ``bench`` extra
(pip would downgrade the
stack the other benchmarks and the tests run on); install it beside a current stack with
``pip install --no-deps irrcac`` (its code runs on numpy 2 / pandas 3 for complete numeric
ratings), or ``pip install .[bench-irrcac]`` in a separate environment. A missing peer is
reported and skipped.

Times are the best of several repeats after a warm-up call, in this one process on the same
data. irrcac rounds to ``digits`` (5 by default): it is called with ``digits=15`` so that the
printed difference measures the computation, not the rounding.
"""

from __future__ import annotations

import os
import platform
import time
import warnings
from importlib import metadata

import numpy as np
import pandas as pd

import predstab


def best_time(func, repeat):
    func()  # warm-up: imports, page faults
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def row(task, ours, theirs, peer, target, diff):
    ratio = theirs / ours
    verdict = "meets" if ratio >= target else "MISSES"
    print(f"{task:<36} {ours * 1e3:>11.2f} {theirs * 1e3:>10.2f} {peer:<9} {ratio:>8.1f}x "
          f"{f'>= {target:g}x':>8} {verdict:<7} {diff:>9.1e}")


def version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def bench_cohen(rng):
    try:
        from sklearn.metrics import cohen_kappa_score
    except ImportError:
        print("Cohen's kappa: scikit-learn not installed; skipped")
        return
    n = 1_000_000
    a = rng.integers(0, 5, size=n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 5, size=n))
    x = np.column_stack([a, b])
    for weights in ("linear", "quadratic"):
        theirs = cohen_kappa_score(a, b, weights=weights)
        diff = abs(predstab.cohen_kappa(x, weights=weights).value - theirs)
        row(f"Cohen's kappa ({weights}) 1e6 x 2",
            best_time(lambda w=weights: predstab.cohen_kappa(x, weights=w), 5),
            best_time(lambda w=weights: cohen_kappa_score(a, b, weights=w), 5), "sklearn", 5, diff)
    print(f"{'':<36} (predstab also computes z, the p-value, psych's variance and interval in that time)")


def bench_kendall(rng):
    try:
        import pyirr
    except ImportError:
        print("Kendall's W: pyirr not installed (pip install --no-deps pyirr); skipped")
        return
    n, k = 10_000, 20
    truth = rng.normal(size=(n, 1))
    x = np.round(truth + rng.normal(scale=1.0, size=(n, k)), 1)  # ties within raters
    # pyirr 0.84.1.2's kendall(correct=False) raises UnboundLocalError (its `error` is never set)
    # unless two objects have identical rows: make object 1 a copy of object 0
    x[1] = x[0]
    frame = pd.DataFrame(x)
    for correct in (False, True):
        theirs = pyirr.kendall(frame, correct=correct)
        ours = predstab.kendall_w(x, correct=correct)
        diff = max(abs(ours.value - theirs.value), abs(ours.statistic - theirs.statistic))
        row(f"Kendall's W 1e4 x 20{' (ties corr.)' if correct else ''}",
            best_time(lambda c=correct: predstab.kendall_w(x, correct=c), 5),
            best_time(lambda c=correct: pyirr.kendall(frame, correct=c), 3), "pyirr", 10, diff)


def bench_ac1(rng):
    try:
        from irrCAC.raw import CAC
    except ImportError:
        print("Gwet's AC1: irrcac not installed (pip install --no-deps irrcac); skipped")
        return
    n, k = 100_000, 10
    truth = rng.integers(0, 5, size=(n, 1))
    x = np.where(rng.random((n, k)) < 0.7, truth, rng.integers(0, 5, size=(n, k)))
    frame = pd.DataFrame(x)

    def peer():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return CAC(frame, digits=15).gwet()["est"]

    theirs = peer()
    ours = predstab.gwet_ac1(x)
    diff = max(abs(ours.value - theirs["coefficient_value"]), abs(ours.standard_error - theirs["se"]))
    row("Gwet's AC1 1e5 x 10, 5 categories", best_time(lambda: predstab.gwet_ac1(x), 5),
        best_time(peer, 2), "irrcac", 20, diff)
    quad = predstab.gwet_ac1(x, weights="quadratic")
    t_quad = best_time(lambda: predstab.gwet_ac1(x, weights="quadratic"), 5)
    t_counts = best_time(lambda: predstab.gwet_ac1(np.bincount(
        (np.arange(n)[:, None] * 5 + x).ravel(), minlength=5 * n).reshape(n, 5), counts=True), 5)
    print(f"{'':<36} AC2 (quadratic) {t_quad * 1e3:.1f} ms (AC2 = {quad.value:.4f}); "
          f"from a count table, counting included: {t_counts * 1e3:.1f} ms")


def bench_alpha(rng):
    try:
        import pingouin
    except ImportError:
        print("Cronbach's alpha: pingouin not installed; skipped")
        return
    n, k = 100_000, 50
    x = rng.normal(size=(n, 1)) + rng.normal(scale=1.5, size=(n, k))
    frame = pd.DataFrame(x)
    theirs, _ = pingouin.cronbach_alpha(frame)
    diff = abs(predstab.cronbach_alpha(x).value - theirs)
    row("Cronbach's alpha 1e5 x 50", best_time(lambda: predstab.cronbach_alpha(x), 3),
        best_time(lambda: pingouin.cronbach_alpha(frame), 3), "pingouin", 5, diff)
    print(f"{'':<36} (predstab also computes standardised alpha, G6, the item-dropped table "
          f"and item statistics in that time)")


def main():
    rng = np.random.default_rng(20261201)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}; "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"peers: scikit-learn {version('scikit-learn')}, irrcac {version('irrcac')}, "
          f"pyirr {version('pyirr')}, pingouin {version('pingouin')}")
    print()
    print(f"{'task':<36} {'predstab ms':>11} {'peer ms':>10} {'peer':<9} {'speed-up':>9} {'target':>8} "
          f"{'':<7} {'|diff|':>9}")
    bench_cohen(rng)
    bench_ac1(rng)
    bench_kendall(rng)
    bench_alpha(rng)
    print()
    print(f"load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
