"""Whether a change to phi / psi / icc / krippendorff_alpha changed any number (issue 33, item 7).

Dump every numeric field of 505 results (phi on metric, categorical and ordinal data of 2-8
classes, uniform and 80 %-agreement votes, both targets, with and without the baseline's error,
the three metric interval methods; icc of matrices and stacks; Krippendorff's alpha on four
scales, with missing values) on 5 seeds, with one checkout, then with another, and compare::

    PYTHONPATH=/tmp/old/src python benchmarks/compare_outputs.py --dump /tmp/old.pkl
    PYTHONPATH=src python benchmarks/compare_outputs.py --dump /tmp/new.pkl
    python benchmarks/compare_outputs.py --compare /tmp/old.pkl /tmp/new.pkl

The comparison prints, per measure and field, the largest ``|new - old| / max(|old|, 1)`` of the
fields that are not bit-identical (nothing: every number identical).
"""

from __future__ import annotations

import argparse
import collections
import pickle
import warnings

import numpy as np


def _fields(res):
    out = {}
    for key in dir(res):
        if key.startswith("__"):
            continue
        try:
            value = getattr(res, key)
        except Exception:  # noqa: BLE001 - a property that does not apply to this result
            continue
        if callable(value):
            continue
        if isinstance(value, np.ndarray) and value.dtype != object:
            out[key] = value.copy()
        elif isinstance(value, (float, int, str, tuple, bool)) or value is None:
            out[key] = value
    return out


def dump(path):
    import predstab

    warnings.simplefilter("ignore")
    cases = {}
    for seed in range(5):
        rng = np.random.default_rng(seed)
        n, refits = [3, 40, 700, 5000, 70000][seed], [5, 20, 7, 100, 30][seed]
        m = rng.normal(size=(n, 1)) * 3 + rng.standard_t(5, size=(n, refits))
        if seed in (1, 3):
            m[rng.random(m.shape) < 0.02] = np.nan
        base = rng.normal(size=300) * 3
        for target in ("population", "objects"):
            for error in (False, True):
                for method in ("auto", "bonett", "chi2"):
                    cases[("metric", seed, target, error, method)] = _fields(predstab.phi(
                        m, base, interval_target=target, baseline_error=error, object_interval=method))
        for k in (2, 3, 5, 6, 8):
            for agree in (0.0, 0.8):
                truth = rng.integers(0, k, size=(n, 1))
                votes = np.where(rng.random((n, refits)) < agree, truth,
                                 rng.integers(0, k, size=(n, refits))).astype(np.int8)
                b = rng.integers(0, k, size=400).astype(np.int8)
                b[:k] = np.arange(k)
                for scale in ("categorical", "ordinal"):
                    kwargs = {"categories": list(range(k))} if scale == "ordinal" else {}
                    for target in ("population", "objects"):
                        for error in (False, True):
                            res = predstab.phi(votes, b, scale=scale, interval_target=target,
                                               baseline_error=error, **kwargs)
                            cases[(scale, seed, k, agree, target, error)] = _fields(res)
                # missing votes (float codes with NaN: factorised codes, -1 for missing), text
                # labels, a pandas Categorical, and psi with a class absent from the baseline
                gappy = votes.astype(float)
                gappy[rng.random(gappy.shape) < 0.05] = np.nan
                cases[("categorical-missing", seed, k, agree)] = _fields(
                    predstab.phi(gappy, b, scale="categorical"))
                cases[("ordinal-missing", seed, k, agree)] = _fields(predstab.phi(
                    gappy, b, scale="ordinal", categories=list(range(k))))
                names = np.array([f"c{j}" for j in range(k)], dtype=object)
                cases[("categorical-text", seed, k, agree)] = _fields(predstab.phi(names[votes], names[b]))
                import pandas as pd
                frame = pd.DataFrame({j: pd.Categorical.from_codes(votes[:, j], categories=list(names))
                                      for j in range(votes.shape[1])})
                cases[("categorical-frame", seed, k, agree)] = _fields(predstab.phi(frame, names[b]))
                cases[("psi-absent", seed, k, agree)] = _fields(predstab.psi(votes, b[b != k - 1],
                                                                              scale="categorical"))
        x = rng.normal(size=(n, 1)) + rng.normal(size=(n, min(refits, 10)))
        for model in ("oneway", "twoway"):
            for kind in ("agreement", "consistency"):
                cases[("icc", seed, model, kind)] = _fields(predstab.icc(x, model=model, type=kind))
        items = max(n // 10, 3)
        stack = rng.normal(size=(4, items, 1)) + rng.normal(size=(4, items, 6))
        cases[("icc-stack", seed)] = _fields(predstab.icc(stack, model="twoway", type="agreement"))
        xm = x.copy()
        if seed % 2:
            xm[rng.random(xm.shape) < 0.05] = np.nan
        for scale in ("interval", "ratio", "nominal", "ordinal"):
            data = xm if scale in ("interval", "ratio") else np.round(xm)
            try:
                cases[("alpha", seed, scale)] = _fields(predstab.krippendorff_alpha(data, scale=scale))
            except Exception as exc:  # noqa: BLE001 - the error is part of the output
                cases[("alpha", seed, scale)] = repr(exc)
    with open(path, "wb") as f:
        pickle.dump(cases, f)
    print(f"{len(cases)} results written to {path}")


def compare(old_path, new_path):
    with open(old_path, "rb") as f:
        old = pickle.load(f)
    with open(new_path, "rb") as f:
        new = pickle.load(f)
    worst, other = collections.defaultdict(float), []
    for key in old:
        a, b = old[key], new.get(key)
        if isinstance(a, str) or isinstance(b, str):
            if a != b:
                other.append((key, a, b))
            continue
        for name, u in a.items():
            v = b.get(name)
            if isinstance(u, tuple) and u and isinstance(u[0], float):
                u, v = np.array(u), np.array(v)
            if isinstance(u, (float, np.ndarray)) and np.asarray(u).dtype.kind == "f":
                u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
                if u.shape != v.shape or not np.array_equal(np.isnan(u), np.isnan(v)):
                    other.append((key, name, "shape or missing values"))
                elif not np.array_equal(u, v, equal_nan=True):
                    ok = ~np.isnan(u)
                    rel = float(np.max(np.abs(u[ok] - v[ok]) / np.maximum(np.abs(u[ok]), 1.0)))
                    worst[(key[0], name)] = max(worst[(key[0], name)], rel)
            elif repr(u) != repr(v):
                other.append((key, name, u, v))
    print(f"{len(old)} results compared")
    for key in sorted(worst):
        print(f"  {key[0]:12s} {key[1]:22s} largest |new - old| / max(|old|, 1): {worst[key]:.2e}")
    for item in other:
        print("  differs:", *item)
    if not worst and not other:
        print("  every number identical")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", metavar="FILE")
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    args = parser.parse_args(argv)
    if args.dump:
        dump(args.dump)
    if args.compare:
        compare(*args.compare)


if __name__ == "__main__":
    main()
