"""Measuring the grid of :func:`predstab.tune_num_learners`: every measure at every grid value.

A strategy (``_tune_strategies``) delivers the forests of each grid value (:class:`_GridValue`)
and psi's fixed baseline (:class:`_Forests`); here each measure of the registry
(:data:`predstab.stability.MEASURES`) is computed on them -- a measure that fails at some ``n``
is NaN there, with the reason in the notes -- and the test objects are resampled for the bands.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd

from .._core._exceptions import PredstabDegenerateWarning
from ..stability._registry import MEASURES


@dataclasses.dataclass(frozen=True)
class _GridValue:
    """The forests of one grid value: predictions, baselines, importances, time."""

    n: int
    test: np.ndarray | None  # (objects, forests); None: too few forests in the pool
    space: np.ndarray | None = None  # per-forest out-of-bag baselines (psi_baseline="per_forest")
    importances: np.ndarray | None = None  # (features, forests)
    seconds: float = float("nan")
    n_forests: int = 0


@dataclasses.dataclass(frozen=True)
class _Forests:
    """What a strategy delivers: the forests of every grid value and psi's fixed baseline."""

    values: dict  # {n: _GridValue}
    baseline: np.ndarray | None = None  # psi's fixed baseline (None: per forest, or no psi)
    baseline_text: str = ""
    pool: object = None  # the TreePool of the pool methods
    pool_size: int | None = None  # its learners (after enlarging it for `precision`)
    notes: tuple = ()


@dataclasses.dataclass(frozen=True)
class _Measured:
    """The grid table and what it was made of: the closed forms, the failures, the degenerate points."""

    table: pd.DataFrame
    closed: dict  # {measure: (curve, low, high, errors)} of the closed forms
    failed: dict  # {measure: {n: reason}}
    degenerate: dict  # {measure: [n, ...]}
    floored: dict = dataclasses.field(default_factory=dict)  # {measure: single_icc} of floored ICC curves


def _closed_baselines(forests):
    """Baselines of the closed forms: psi's fixed one (the same as the other methods')."""
    if forests.baseline is None:
        return {}
    return {name: forests.baseline for name, m in MEASURES.items() if m.baseline == "prediction_space"}


def _baseline(entry, gv, config, forests):
    """What ``entry`` is measured against at the grid value ``gv``: the training responses, psi's
    baseline (fixed, or the forests' own out-of-bag predictions), or nothing."""
    if entry.baseline == "training_observations":
        return config.y
    if entry.baseline == "prediction_space":
        return gv.space if config.psi_baseline == "per_forest" else forests.baseline
    return None


def _measure(name, gv, config, forests, rows=None):
    """Value of one measure at one grid value (``rows`` resamples objects); may raise."""
    entry = MEASURES[name]
    matrix = gv.importances if entry.reads == "importances" else gv.test
    if rows is not None:
        matrix = matrix[rows]
    return entry.value(matrix, _baseline(entry, gv, config, forests), scale=config.scale,
                       categories=config.categories, **config.measure_options[name])


def _measure_point(name, gv, config, forests):
    """``(value, degenerate, error)``: a measure that cannot be computed is NaN, never raised."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = float(_measure(name, gv, config, forests))
    except Exception as exc:  # noqa: BLE001 -- no single measure may abort the run
        return float("nan"), False, f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    degenerate = any(issubclass(w.category, PredstabDegenerateWarning) for w in caught)
    return value, degenerate, ""


def _resampled(name, gv, config, forests, rows):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(_measure(name, gv, config, forests, rows))
    except Exception:  # noqa: BLE001 -- a resample where the measure is undefined
        return float("nan")


def _measure_grid(config, forests, closed, closed_failed, floored):
    """The grid table: the closed forms' columns (with their bands), every other measure at
    every grid value; the failures, the degenerate points and the closed forms floored at 0
    (``floored``: ``{measure: ICC(1) of one learner without the floor}``)."""
    grid, values = config.grid, forests.values
    columns = {"n_learners": list(grid)}
    failed, degenerate = {m: dict.fromkeys(grid, reason) for m, reason in closed_failed.items()}, {}
    for m in config.measures:
        if m in closed:
            curve, low, high, _ = closed[m]
            columns[m] = np.asarray(curve, dtype=float)
            if low is not None:
                columns[f"{m}_low"], columns[f"{m}_high"] = np.asarray(low, float), np.asarray(high, float)
            continue
        column = []
        for n in grid:
            gv = values[n]
            if gv.test is None:
                column.append(float("nan"))
                failed.setdefault(m, {})[n] = (f"fewer than 2 disjoint forests in the pool of "
                                               f"{forests.pool_size} learners; increase `pool_size`")
                continue
            value, flat, error = _measure_point(m, gv, config, forests)
            column.append(value)
            if error:
                failed.setdefault(m, {})[n] = error
            if flat:
                degenerate.setdefault(m, []).append(n)
        columns[m] = np.asarray(column, dtype=float)
    columns["degenerate"] = [",".join(m for m in config.measures if n in degenerate.get(m, ())) for n in grid]
    columns["seconds"] = [values[n].seconds for n in grid]
    columns["n_forests"] = [values[n].n_forests for n in grid]
    return _Measured(table=pd.DataFrame(columns), closed=closed, failed=failed, degenerate=degenerate,
                     floored=dict(floored))


def _point_notes(measured):
    """The notes about measures that failed at some ``n`` and about degenerate points."""
    notes = []
    for m, where in measured.failed.items():
        reasons = {}
        for n, reason in where.items():
            reasons.setdefault(reason, []).append(n)
        for reason, ns in reasons.items():
            notes.append(f"{m} could not be computed at n = {', '.join(map(str, ns))} (NaN there): {reason}")
    for m, ns in measured.degenerate.items():
        notes.append(f"{m} at n = {', '.join(map(str, ns))} is degenerate ({MEASURES[m].degenerate}); "
                     "marked in the table's `degenerate` column and left out of the 2PL fit")
    return notes


# --------------------------------------------------------------------------- objects resampled


def _object_bands(config, forests, table, measures, rng, progress):
    """Add the object-bootstrap bands of ``measures`` to ``table``; return the primary measure's
    resampled curves (rows) for its recommendation interval, or None."""
    values = forests.values
    if not all(values[g].test is not None for g in config.grid):
        return None
    curves = _bootstrap_objects(config, forests, measures, rng, progress.callback("bootstrap bands"))
    alpha = (1 - config.confidence_level) / 2
    for m, c in curves.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            low, high = np.nanquantile(c, [alpha, 1 - alpha], axis=0)
        undefined = ~np.isfinite(table[m].to_numpy(dtype=float))  # no band about a value that is not there
        table[f"{m}_low"] = np.where(undefined, np.nan, low)
        table[f"{m}_high"] = np.where(undefined, np.nan, high)
    return curves.get(config.primary)


def _bootstrap_objects(config, forests, measures, rng, progress=None):
    """``{measure: (n_resamples, len(grid)) resampled curves}``: objects resampled (the same rows
    for every grid value and every measure of the primary's kind: test objects, or variables
    for the importance measures)."""
    grid, values, n_resamples = config.grid, forests.values, config.n_resamples
    reads = MEASURES[config.primary].reads
    same = [m for m in measures if MEASURES[m].reads == reads]
    first = values[grid[0]]
    n_objects = len(first.importances if reads == "importances" else first.test)
    # phi and psi hold D_e fixed, so a resample's value is 1 - mean(D_o,i over its rows) / D_e:
    # the per-object disagreements of one call give every resample (as the direct call would)
    parts = {(m, n): _per_object_parts(m, values[n], config, forests) for m in same
             if MEASURES[m].baseline is not None for n in grid}
    curves = {m: np.empty((n_resamples, len(grid))) for m in same}
    for b in range(n_resamples):
        rows = rng.integers(0, n_objects, n_objects)
        for m in same:
            curves[m][b] = [_resampled(m, values[n], config, forests, rows) if parts.get((m, n)) is None
                            else _from_parts(parts[(m, n)], rows) for n in grid]
        if progress is not None:
            progress(b + 1, n_resamples)
    return curves


def _per_object_parts(name, gv, config, forests):
    """``(per-object observed disagreement, D_e)`` of phi / psi, or None (then computed directly)."""
    res = _stability_result(name, gv, config, forests)
    if res is None:
        return None
    # predictions of extreme magnitude: the parts in the units phi computed them in (exact powers of
    # four; the reported ones underflow to denormals at 1e-160, and the bands moved by 1e-3)
    observed, expected = (res.per_object_observed, res.expected) if res._scaled is None else res._scaled
    if not (np.isfinite(expected) and expected > 0):
        return None
    return np.asarray(observed, dtype=float), float(expected)


def _from_parts(parts, rows):
    observed, expected = parts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # every resampled object dropped
        return float(1.0 - np.nanmean(observed[rows]) / expected)


def _stability_result(name, gv, config, forests):
    """The full result (phi's or psi's, with its per-object view) of ``name`` at the grid value
    ``gv``, or None when it is not measured there or cannot be computed."""
    if name not in config.measures or gv is None or gv.test is None:
        return None
    entry = MEASURES[name]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return entry.compute(gv.test, _baseline(entry, gv, config, forests), scale=config.scale,
                                 categories=config.categories, **config.measure_options[name])
    except Exception:  # noqa: BLE001 -- the per-object view is optional; the table has the NaN and the note
        return None


def _ordered(table, measures):
    """Columns: n_learners, each measure with its band, degenerate, seconds, n_forests."""
    order = ["n_learners"]
    for m in measures:
        order += [c for c in (m, f"{m}_low", f"{m}_high") if c in table]
    order += ["degenerate", "seconds", "n_forests"]
    return table[order]
