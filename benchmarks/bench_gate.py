"""The cost of the gate's square-matrix orientation rule (issue 32) on small and large calls.

Usage::

    PYTHONPATH=src python benchmarks/bench_gate.py            # prints the table (markdown)
    PYTHONPATH=src python benchmarks/bench_gate.py --repeat 9

A matrix neither of whose sides is 3 times the other (5 x 5 or more) is judged by the square
rule of :func:`predstab._core._gate.check_orientation` (the two-way layout of at most 512 evenly
spaced rows and columns). For ``icc``, ``fleiss_kappa`` and ``phi`` on n x n matrices of objects
x replicates (n = 5, 20, 200, 512, 2000; fixed seed, no warning), each call is timed with the
rule and without it (``_gate._SQUARE_MIN`` set beyond any matrix, so the square branch returns
at once: everything else the call does is unchanged), alternately in the same process, the best
of ``--repeat`` runs of each. The ratio with / without is the rule's share of the call; the
rule alone (``looks_transposed``) is timed as well.
"""

from __future__ import annotations

import argparse
import os
import timeit
import warnings

import numpy as np

import predstab
from predstab._core import _gate

SIZES = (5, 20, 200, 512, 2000)


def data(n, rng):
    """Objects x replicates: ``n`` objects that differ, ``n`` replicates that agree (no warning);
    metric values for icc and phi, 4 categories of them for fleiss_kappa."""
    objects = rng.normal(size=(n, 1))
    values = objects + 0.5 * rng.normal(size=(n, n))
    categories = np.digitize(values, [-1.0, 0.0, 1.0])
    y = rng.normal(size=n)
    return values, categories, y


def timed(func, repeat):
    """``(with the rule, without it)``: alternately, the best of ``repeat`` each."""
    on, off = [], []
    original = _gate._SQUARE_MIN
    for _ in range(repeat):
        on.append(timeit.timeit(func, number=1))
        _gate._SQUARE_MIN = 10**12
        try:
            off.append(timeit.timeit(func, number=1))
        finally:
            _gate._SQUARE_MIN = original
    return min(on), min(off)


def fmt(seconds):
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(32)
    load = "{:.2f} / {:.2f} / {:.2f}".format(*os.getloadavg())
    rows = []
    for n in SIZES:
        values, categories, y = data(n, rng)
        repeat = args.repeat if n < 2000 else max(3, args.repeat // 2)
        calls = {"icc": lambda values=values: predstab.icc(values),
                 "fleiss_kappa": lambda categories=categories: predstab.fleiss_kappa(categories),
                 "phi": lambda values=values, y=y: predstab.phi(values, y)}
        for name, call in calls.items():
            with warnings.catch_warnings():
                warnings.simplefilter("error", predstab.PredstabOrientationWarning)
                call()  # warm; and no orientation warning on these data
            on, off = timed(call, repeat)
            matrix = categories if name == "fleiss_kappa" else values
            rule = lambda matrix=matrix: _gate.looks_transposed(matrix)  # noqa: E731
            alone = min(timeit.repeat(rule, number=1, repeat=repeat))
            rows.append((f"{n} x {n}", name, on, off, alone))
    print(f"load before: {load}; after: " + "{:.2f} / {:.2f} / {:.2f}".format(*os.getloadavg())
          + f"; best of {args.repeat} (3 at 2000 x 2000), alternately with and without the rule")
    print()
    print("| matrix | call | with the rule | without | ratio | the rule alone | its share of the call |")
    print("|---|---|---|---|---|---|---|")
    for size, name, on, off, alone in rows:
        print(f"| {size} | `{name}` | {fmt(on)} | {fmt(off)} | {on / off:.2f} | {fmt(alone)} | "
              f"{100 * alone / on:.0f} % |")


if __name__ == "__main__":
    main()
