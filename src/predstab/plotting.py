"""Plots of prediction stability (matplotlib).

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot, so they
work on headless machines (no display, no backend set-up) and never touch pyplot's global
state; pass ``ax=`` to draw into an axes of your own figure instead (the figure of that axes
is returned). matplotlib is imported only when a plot is made. Each takes the result object
that holds its data, and :func:`plot` picks the right one for any result (what a result's
``.plot()`` method calls).

- :func:`plot_stability_curve`: stability versus number of trees, measured points with error
  bars, the fitted 2PL curve and the recommended number of trees, one line per measure; from
  arrays or a :class:`~predstab.TuningResult`.
- :func:`plot_per_object`: every test object's stability (sorted bars or a histogram), the
  least stable objects labelled: the single-object forecast check at a glance. Objects are
  named as everywhere in predstab: the input's row labels, else their 0-based row position
  (the index of :meth:`~predstab.StabilityResult.per_object_frame`).
- :func:`plot_cd_diagram`: the critical-difference diagram of a Friedman-Nemenyi or a
  Bonferroni-Dunn result (the results' ``.plot()``).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._core._reading import real_values
from ._core._validation import HasMethods, Interval, Options, validate_params

__all__ = ["plot", "plot_stability_curve", "plot_per_object", "plot_cd_diagram"]

_KINDS = ("bar", "hist")
# 8 x 5 in at 120 dpi: 960 x 600 px, text readable on a page at full width (issue 22, item 23)
_FIGSIZE = (8.0, 5.0)
_DPI = 120
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")


def _new_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=_DPI, layout="constrained")
    return fig, fig.add_subplot()


def _legend(ax, own_figure, **kwargs):
    """The legend beside the axes of a figure of our own (never over the data); in an axes the
    caller gave, matplotlib's emptiest corner of it."""
    if own_figure:
        return ax.figure.legend(*ax.get_legend_handles_labels(), loc="outside right upper", fontsize=8,
                                **kwargs)
    return ax.legend(loc="best", fontsize=8, **kwargs)


def _title(ax, title, own_figure):
    """The axes' title; in a figure of our own, each line too wide for the axes is wrapped at
    spaces, so a long title never runs under the legend beside the axes."""
    import textwrap

    ax.set_title(title)
    if not own_figure:
        return
    fig = ax.figure
    lines = title.split("\n")
    chars = max(len(line) for line in lines)
    for _ in range(8):  # narrower until the title is clear of the legends and inside the figure
        fig.draw_without_rendering()
        box = ax.title.get_window_extent()
        clear = box.x0 >= fig.bbox.x0 and box.x1 <= fig.bbox.x1 and not any(
            box.overlaps(legend.get_window_extent()) for legend in fig.legends)
        if clear or chars <= 10:
            return
        chars = max(int(chars * min(ax.get_window_extent().width / box.width, 0.9)), 10)
        ax.set_title("\n".join(textwrap.fill(line, chars) for line in lines))


def _drop_overlapping(texts):
    """Remove labels whose drawn box overlaps one kept before it; return those kept (in order)."""
    if not texts:
        return []
    kept, boxes = [], []
    for text in texts:
        box = text.get_window_extent()
        if any(box.overlaps(other) for other in boxes):
            text.remove()
            continue
        kept.append(text)
        boxes.append(box)
    return kept


def _curve_of(fit):
    """A callable n -> stability from a TwoPL-like object or a ``(p1, p2)`` pair.

    The curve is drawn from p1 and p2 directly (smooth in n), not through
    ``TwoPL.stability``, which rounds n up to whole learners as optRF does.
    """
    if hasattr(fit, "p1") and hasattr(fit, "p2"):
        p1, p2 = float(fit.p1), float(fit.p2)
    elif hasattr(fit, "stability"):
        return fit.stability
    else:
        p1, p2 = (float(v) for v in fit)
    return lambda n: 1.0 / (1.0 + (p1 / np.asarray(n, dtype=float)) ** p2)


def _plot_stability_curve_iv(n, stability, errors, fits, recommended):
    n = real_values(n, name="n")
    if n.ndim != 1 or n.size < 1 or not np.all(np.isfinite(n)) or np.any(n <= 0):
        raise ValueError(f"`n` must be a 1-D array of positive numbers of learners; got {n!r}.")
    if not isinstance(stability, dict):
        stability = {"stability": stability}
    curves = {}
    for name, values in stability.items():
        values = real_values(values, name=f"stability[{name!r}]", rectangular=True)
        if values.ndim == 2 and values.shape[0] == n.size:  # (n_grid, n_repeats): summarise
            values = values
        elif values.shape != n.shape:
            raise ValueError(f"`stability[{name!r}]` must have shape ({n.size},) or ({n.size}, n_repeats); "
                             f"got shape {values.shape}.")
        curves[str(name)] = values
    errors = {} if errors is None else dict(errors)
    for name in errors:
        if name not in curves:
            raise ValueError(f"`errors` has a key {name!r} that is not in `stability` ({list(curves)}).")
    fits = {} if fits is None else dict(fits)
    for name in fits:
        if name not in curves:
            raise ValueError(f"`fits` has a key {name!r} that is not in `stability` ({list(curves)}).")
    if recommended is None:
        recommended = {}
    elif isinstance(recommended, numbers.Real):
        recommended = {None: recommended}
    else:
        recommended = dict(recommended)
    return n, curves, errors, fits, recommended


def _is_tuning_result(obj) -> bool:
    return hasattr(obj, "table") and hasattr(obj, "fits") and hasattr(obj, "recommendation")


def _from_tuning_result(result, errors, fits, recommended, title, xlabel=None):
    """Arguments of :func:`plot_stability_curve` from a TuningResult (explicit ones win).

    The measures are the result's fitted ones (the table also holds ``<m>_low`` / ``<m>_high``
    bands, the ``degenerate`` flags, timings); points flagged degenerate (0/0 set to 1) are
    drawn as a series of their own, not as part of the fitted measure's points.
    """
    table = result.table
    if "n_learners" not in table.columns:
        raise ValueError("`n` is a tuning result without an `n_learners` column in its table; "
                         f"got columns {list(table.columns)}.")
    measures = [m for m in getattr(result, "measures", None) or result.fits if m in table.columns]
    flags = table["degenerate"].fillna("").astype(str) if "degenerate" in table.columns else None
    stability = {}
    for m in measures:
        values = table[m].to_numpy(dtype=float)
        flagged = (np.array([m in d.split(",") for d in flags], dtype=bool) if flags is not None
                   else np.zeros(values.size, dtype=bool))
        stability[m] = np.where(flagged, np.nan, values)
        if flagged.any():
            stability[f"{m}: degenerate, 0/0 set to 1"] = np.where(flagged, values, np.nan)
    if errors is None:
        errors = {m: table[[f"{m}_low", f"{m}_high"]].to_numpy(float).T for m in measures
                  if f"{m}_low" in table.columns and np.isfinite(table[f"{m}_low"].to_numpy(float)).all()}
        if not errors and getattr(result, "bands", None):
            errors = {m: np.vstack([band["low"].to_numpy(float), band["high"].to_numpy(float)])
                      for m, band in result.bands.items() if m in stability}
    names = {}
    if fits is None:
        fits = {m: f for m, f in result.fits.items() if m in stability and getattr(f, "converged", True)}
        # a measure without a fitted curve says so in the legend (with the reason when it is short,
        # e.g. an ICC(1) floored at 0); its points and bars are drawn as they are
        unfitted = {m: f for m, f in result.fits.items() if m in stability and m not in fits}
        names = {m: f"{m}: no 2PL fit" + (f" ({f.message})" if len(str(f.message)) <= 40 else "")
                 for m, f in unfitted.items()}
        stability = {names.get(k, k): v for k, v in stability.items()}
        errors = {names.get(k, k): v for k, v in errors.items()}
    if recommended is None and result.recommendation is not None:
        primary = getattr(result, "primary", None)
        named = primary in stability or primary in names  # (a renamed series keeps its measure's name here)
        recommended = {primary: result.recommendation} if named else result.recommendation
    unit = getattr(result, "unit", "learners")  # a pool of members (networks, ...) is told in members
    if xlabel is None:
        xlabel = "number of members" if unit == "members" else "number of trees"
    if title is None:
        title = f"stability against the {xlabel} ({getattr(result, 'method', 'tuning')})"
        if errors and getattr(result, "method", None) == "closed_form":
            level = getattr(result, "confidence_level", 0.95)
            title += f"\nbars: {level:.0%} bands, {unit} only (these test objects, this training set)"
    return table["n_learners"].to_numpy(dtype=float), stability, errors, fits, recommended, title, xlabel


def plot_stability_curve(n, stability=None, /, *, errors=None, fits=None, recommended=None, ax=None,
                         title=None, logx=None, xlabel=None):
    """Stability versus number of learners, with the fitted 2PL curves and the recommendation.

    The measures' points and error bars at one n are drawn side by side, 7 points apart and
    centred on n (fewer points apart on a grid too dense for that), so that no band hides
    another's; the data keep their n (the offset is in the drawing only).

    Parameters
    ----------
    n : array-like of shape (n_grid,), or TuningResult
        Numbers of trees (learners) at which stability was measured, or a result of
        :func:`predstab.tune_num_learners` (then ``stability`` is omitted: its ``table`` gives
        the grid and one curve per measure, its ``fits`` the 2PL curves, its
        ``recommendation`` the dashed line and, for the closed form, its ``bands`` the error
        bars; arguments given explicitly take precedence).
    stability : array-like or dict of str to array-like
        One measure, or ``{measure name: values}``. Values of shape ``(n_grid,)`` are plotted as
        points; of shape ``(n_grid, n_repeats)`` as their mean with ± one standard deviation as
        error bars (e.g. several runs of the measurement).
    errors : dict of str to array-like, optional
        Error bars per measure: shape ``(n_grid,)`` (symmetric half-widths) or ``(2, n_grid)``
        (lower and upper limits, e.g. a confidence interval).
    fits : dict of str to TwoPL or (p1, p2), optional
        Fitted 2PL curves, ``stability(n) = 1 / (1 + (p1 / n)**p2)``, drawn as lines.
    recommended : int or dict of str to int, optional
        Recommended number of trees (one for the plot, or one per measure): a dashed vertical
        line, its value in the legend (beside the axes in a figure of its own, so no label
        crosses the curves and the legend covers no point).
    ax : matplotlib Axes, optional
        Draw here instead of a new figure.
    title : str, optional
    logx : bool, optional
        Logarithmic n axis; default when the grid spans more than a factor of 20.
    xlabel : str, optional
        What ``n`` counts, on the x axis and in the default title of a TuningResult, e.g.
        "networks in the ensemble". Default "number of members" for a TuningResult of a pool of
        members (``TreePool.from_predictions``; its ``unit``), else "number of trees".

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_stability_curve([50, 100, 200, 400], {"phi": [0.90, 0.95, 0.97, 0.985]},
    ...                            fits={"phi": (5.5, 1.0)}, recommended=500)
    >>> fig.axes[0].get_ylabel()
    'stability'
    """
    if _is_tuning_result(n):
        if stability is not None:
            raise TypeError("`stability` must be omitted when `n` is a tuning result (it holds the curves).")
        n, stability, errors, fits, recommended, title, xlabel = _from_tuning_result(
            n, errors, fits, recommended, title, xlabel)
    elif stability is None:
        raise TypeError("`stability` is needed when `n` is an array of numbers of learners; or pass a "
                        "TuningResult (from predstab.tune_num_learners) alone.")
    n, curves, errors, fits, recommended = _plot_stability_curve_iv(n, stability, errors, fits, recommended)
    own_figure = ax is None
    fig, ax = _new_axes(ax, _FIGSIZE)
    colours = [f"C{i}" for i in range(10)]
    bars = []  # each measure's points and error bars, dodged sideways at the end
    n_max = max([n.max(), *[v for v in recommended.values() if v is not None]])
    grid = np.geomspace(max(n.min() / 2, 1.0), n_max * 1.15, 200)
    for i, (name, values) in enumerate(curves.items()):
        colour = colours[i % 10]
        if values.ndim == 2:
            centre = np.nanmean(values, axis=1)
            # no spread from a single repeat (nanstd would warn about 0 degrees of freedom)
            err = np.nanstd(values, axis=1, ddof=1) if values.shape[1] > 1 else None
        else:
            centre, err = values, None
        if name in errors:
            err = np.asarray(errors[name], dtype=float)
            if err.ndim == 2:  # limits -> distances from the point
                err = np.vstack([centre - err[0], err[1] - centre])
        # curves that coincide (all at 1.000) stay visible: a marker of their own per measure,
        # hollow, the first drawn largest, so a later one never hides an earlier one
        bars.append(ax.errorbar(n, centre, yerr=err, fmt=_MARKERS[i % len(_MARKERS)], color=colour,
                                capsize=_CAPSIZE, label=name, markersize=max(8 - 1.5 * i, 3),
                                markerfacecolor="none", zorder=3 + i))
        if name in fits:
            # solid (dashed lines are recommendations); fitted curves that coincide (phi, psi and
            # kappa on a converged classifier) stay told apart: the first drawn widest, each
            # later one narrower on top of it
            if getattr(fits[name], "poor_fit", False):  # the text says "do not trust it": so does the line
                ax.plot(grid, _curve_of(fits[name])(grid), ":", color=colour, alpha=0.8, lw=1.2, zorder=2 + i,
                        label=f"{name}: poor 2PL fit (R² {float(fits[name].r_squared):.2f}), not trusted")
            else:
                ax.plot(grid, _curve_of(fits[name])(grid), "-", color=colour, alpha=0.8,
                        lw=max(3.0 - 0.75 * i, 1.0), zorder=2 + i)
    # one dashed line per recommended value; measures that agree share it (and its label)
    by_value = {}
    for name, rec in recommended.items():
        if rec is not None:
            by_value.setdefault(float(rec), []).append(name)
    for rec, names in sorted(by_value.items()):
        named = [m for m in names if m is not None]
        colour = (colours[list(curves).index(named[0]) % 10] if len(names) == 1 and named
                  and named[0] in curves else "black")
        label = (f"recommended for {', '.join(named)}: {int(rec)}" if named
                 else f"recommended: {int(rec)}")
        # the value is told by the legend, beside the axes: no label for the curves to cross
        ax.axvline(rec, color=colour, ls="--", lw=1, label=label)
    if logx is None:
        logx = n_max / n.min() > 20
    if logx:
        ax.set_xscale("log")
    elif np.all(n == np.round(n)):  # whole numbers of learners: no tick at 1.5 learners
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("number of trees" if xlabel is None else xlabel)
    ax.set_ylabel("stability")
    ax.grid(alpha=0.3)
    _legend(ax, own_figure)
    if title:
        _title(ax, title, own_figure)
    _dodge(ax, bars, n)
    return fig


#: the error bars' caps (points either side of the bar), and the sideways step between the
#: measures at one n (points): a cap's width and a gap, so that no band hides behind another
_CAPSIZE, _DODGE = 2.5, 7.0


def _dodge_step(ax, n, k) -> float:
    """The sideways step (points) between ``k`` measures at one n: :data:`_DODGE`, or less where
    the grid is so dense on the axes (as laid out now) that the group of ``k`` would reach 80 %
    of the way to the next n."""
    xs = np.sort(ax.transData.transform(np.column_stack([n, np.ones_like(n)]))[:, 0])
    gaps = np.diff(xs)[np.diff(xs) > 0]
    gap = float(gaps.min()) * 72 / ax.figure.dpi if gaps.size else math.inf
    return min(_DODGE, 0.8 * gap / k)


def _dodge(ax, bars, n):
    """Move each measure's points and error bars sideways by a fixed number of points, the
    measures centred on their n (position dodge): bands of different measures at the same n
    (icc under phi at n = 1) are all seen. The data keep their x (n itself); the offset is in
    the drawing only, so it is the same on a linear and a logarithmic axis. Where the step is
    narrower than the caps, the caps are narrowed with it (and dropped below a point)."""
    from matplotlib.transforms import ScaledTranslation

    k = len(bars)
    if k < 2:
        return
    ax.figure.draw_without_rendering()  # the layout as it will be drawn: the grid's spacing in points
    step = _dodge_step(ax, n, k)
    cap = min(2 * _CAPSIZE, step - 2.0)  # a cap's width (its marker size), 2 points clear of the next
    cap = cap if cap >= 1.0 else 0.0  # a grid too dense for caps: the bars alone, a step apart
    for i, container in enumerate(bars):
        shift = ScaledTranslation((i - (k - 1) / 2) * step / 72, 0, ax.figure.dpi_scale_trans)
        points, caps, lines = container.lines
        for artist in (points, *caps, *lines):
            if artist is not None:
                artist.set_transform(ax.transData + shift)
        for artist in caps:
            artist.set_markersize(cap)


def _plot_per_object_iv(stability, kind, labels, n_labelled):
    default_labels = None
    if hasattr(stability, "per_object"):
        what = f"{getattr(stability, 'kind', 'stability')} per object"
        default_labels = getattr(stability, "object_labels", None)
        values = real_values(stability.per_object, name="stability")
    else:
        what = "stability per object"
        values = real_values(stability, name="stability")
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"`stability` must be a StabilityResult or a non-empty 1-D array; "
                         f"got shape {values.shape}.")
    if kind not in _KINDS:
        raise ValueError(f"`kind` must be one of {_KINDS}; got {kind!r}.")
    if labels is None and default_labels is not None and len(default_labels) == values.size:
        labels = [str(v) for v in default_labels]
    elif labels is None:
        labels = [str(i) for i in range(values.size)]  # 0-based, as per_object_frame() and warnings
    else:
        labels = [str(v) for v in labels]
        if len(labels) != values.size:
            raise ValueError(f"`labels` must have one entry per object ({values.size}); got {len(labels)}.")
    if isinstance(n_labelled, bool) or not isinstance(n_labelled, numbers.Integral) or n_labelled < 0:
        raise ValueError(f"`n_labelled` must be a non-negative integer; got {n_labelled!r}.")
    return values, labels, int(n_labelled), what


def plot_per_object(stability, /, *, kind="bar", labels=None, n_labelled=5, threshold=None, ax=None,
                    title=None):
    """Each object's stability, least stable first, with the least stable objects labelled.

    Parameters
    ----------
    stability : StabilityResult or array-like of shape (n_objects,)
        A result of :func:`predstab.phi` / :func:`predstab.psi` (its ``per_object``) or the
        values themselves. Objects whose value is undefined (NaN) are counted in the title and
        left out.
    kind : {"bar", "hist"}, default "bar"
        ``"bar"``: the objects sorted from least to most stable, each a point at its value
        with its confidence interval as a line when the result has them (``per_object_low`` /
        ``per_object_high``; one object: its value and interval in the title too). Up to 40
        objects are all drawn one by one; of more, the 30 least stable below the highest
        value are, and the others are summarised in one box (quartiles, whiskers to the
        extremes) named by their number, so hundreds or thousands of objects stay readable.
        ``"hist"``:
        a histogram (for many objects), the least stable objects marked with a line each and
        named one row apiece, so equal values never print over each other.
    labels : sequence of str, optional
        Names of the objects. Default: the row labels of the input DataFrame (a result's
        ``object_labels``), else the 0-based row positions, the numbering of
        :meth:`~predstab.StabilityResult.per_object_frame` and of predstab's warnings.
    n_labelled : int, default 5
        How many of the least stable objects to name; objects at the highest value are never
        named (when all objects are equally stable, none is). On bars too narrow for every
        name, the names are listed in the axis label, left to right, instead (a histogram puts
        each name on a row of its own).
    threshold : float, optional
        A reference stability (e.g. 0.9) drawn as a dotted line, labelled in the legend.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = plot_per_object([0.99, 0.42, 0.97, 0.88], n_labelled=1)
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['1']
    """
    values, labels, n_labelled, what = _plot_per_object_iv(stability, kind, labels, n_labelled)
    low, high = _per_object_interval(stability, values)
    defined = np.flatnonzero(~np.isnan(values))
    order = defined[np.argsort(values[defined], kind="stable")]
    n_undefined = values.size - defined.size
    own_figure = ax is None
    fig, ax = _new_axes(ax, _FIGSIZE)
    # name only objects below the most stable value: when every object is at 1.000 (a flat,
    # converged forest) none is "least stable"
    top = values[order[-1]] if order.size else np.nan
    lowest = np.array([i for i in order[:n_labelled] if values[i] < top], dtype=int)
    texts, with_interval, interval = [], False, None
    if kind == "bar":
        lowest = lowest[:order.size if order.size <= _N_SUMMARISED else _N_SHOWN]  # drawn one by one
        level = getattr(stability, "confidence_level", 0.95)
        texts, with_interval, interval = _per_object_points(ax, order, values, (low, high), lowest, labels,
                                                            what, level)
    elif kind == "hist":
        ax.hist(values[order], bins="auto", color="C0", alpha=0.8)
        for k, i in enumerate(lowest):
            ax.axvline(values[i], color="C3", lw=0.8)
            # one row each, least stable on top, so equal values never print over each other
            texts.append(ax.annotate(labels[i], (values[i], 0.97 - 0.065 * k),
                                     xycoords=("data", "axes fraction"), textcoords="offset points",
                                     xytext=(2, 0), va="top", ha="left", fontsize=8,
                                     color="C3", bbox={"boxstyle": "square,pad=0.1", "fc": "white",
                                                       "ec": "none", "alpha": 0.8}))
        ax.set_xlabel(what)
        ax.set_ylabel("number of objects")
    else:
        raise ValueError(f"`kind` must be one of {_KINDS}; got {kind!r}.")
    if threshold is not None:
        (ax.axhline if kind == "bar" else ax.axvline)(threshold, color="grey", ls=":", lw=1.2,
                                                      label=f"threshold {threshold:g}")
    heading = title or what
    if title is None and order.size == 1:
        i = order[0]
        heading += (f": {values[i]:.4f}" + (f" ({interval} {low[i]:.4f} to {high[i]:.4f})"
                                            if kind == "bar" and with_interval else ""))
    if n_undefined:
        heading += f" ({n_undefined} undefined not shown)"
    _title(ax, heading, own_figure)
    ax.grid(alpha=0.3, axis="y")
    if ax.get_legend_handles_labels()[0]:
        _legend(ax, own_figure)
    fig.draw_without_rendering()  # place everything, then drop labels that print over another
    kept = _drop_overlapping(texts)
    if kind == "bar" and len(kept) < len(texts):
        # bars too narrow for every name: all of them, in order, under the axis instead of some
        for text in kept:
            text.remove()
        ax.set_xlabel(f"{ax.get_xlabel()}; red, left to right: {', '.join(str(labels[i]) for i in lowest)}")
    return fig


# at most this many objects drawn one by one; beyond _N_SUMMARISED objects the least stable
# _N_SHOWN are drawn and the others summarised in one box
_N_SHOWN, _N_SUMMARISED = 30, 40


def _per_object_points(ax, order, values, ends, lowest, labels, what, confidence_level):
    """The "bar" kind of :func:`plot_per_object`: the least stable objects one by one (a point at
    the value, the interval as a line under it), the rest as one box. Returns the name labels,
    whether intervals were drawn and the intervals' legend label. ``ends``: the objects' interval
    ends ``(low, high)``."""
    low, high = ends
    if order.size <= _N_SUMMARISED:
        shown = order
    else:  # the least stable, but never one at the highest value (those are not "least stable")
        shown = order[:_N_SHOWN][values[order[:_N_SHOWN]] < values[order[-1]]]
    rest = order[shown.size:]
    x = np.arange(shown.size, dtype=float)
    with_interval = shown.size > 0 and bool(np.isfinite(low[shown]).all() and np.isfinite(high[shown]).all())
    interval = f"{confidence_level:.0%} interval" if with_interval else None
    if with_interval:
        # from low to high as the result holds them (not as +- distances from the value: an
        # interval clipped at a bound need not contain a value beyond it); under the points
        ax.vlines(x, low[shown], high[shown], colors="0.55", lw=1.5, label=interval, zorder=2)
    red = np.isin(shown, lowest)
    ax.plot(x[~red], values[shown[~red]], "o", color="C0", ms=5 if shown.size > 12 else 7, zorder=3)
    ax.plot(x[red], values[shown[red]], "o", color="C3", ms=5 if shown.size > 12 else 7, zorder=3)
    tops = high if with_interval else values
    texts = [ax.annotate(labels[i], (x[np.flatnonzero(shown == i)[0]], tops[i]), textcoords="offset points",
                         xytext=(0, 3), ha="center", va="bottom", fontsize=8, color="C3", rotation=90)
             for i in lowest]
    ticks, names = ([0], [labels[shown[0]]]) if order.size == 1 else ([], [])
    spread = [values[shown]] + ([low[shown], high[shown]] if with_interval else [])
    if rest.size:
        # the others, summarised: quartiles in the box, whiskers to the extremes
        at = shown.size + 1.5
        ax.boxplot(values[rest], positions=[at], widths=1.6, whis=(0, 100), showfliers=False,
                   patch_artist=True, boxprops={"facecolor": "C0", "alpha": 0.35},
                   medianprops={"color": "C0"}, manage_ticks=False, zorder=3)
        same = values[rest[0]] == values[rest[-1]]
        ticks = [at]
        names = [f"{'all' if not shown.size else 'the other'} {rest.size}\n"
                 + (f"(all at {values[rest[0]]:.4g})" if same else "(box: quartiles, range)")]
        spread.append(values[rest])
        ax.set_xlim(-1, at + 1.5)
    bottom, top_ = float(np.min(np.concatenate(spread))), float(np.max(np.concatenate(spread)))
    top_ = max(top_, 1.0)
    pad = max(0.05 * (top_ - bottom), 0.005)
    # room above for the names of the least stable, which stand on their intervals
    ax.set_ylim(bottom - pad, top_ + (pad if not texts else pad + 0.12 * (top_ - bottom + 2 * pad)))
    if order.size == 1:
        ax.set_xlim(-1, 1)
    ax.set_xlabel("objects, least stable first"
                  + (f" ({shown.size} of {order.size} one by one)" if rest.size else ""))
    ax.set_ylabel(what)
    ax.set_xticks(ticks, names)
    return texts, with_interval, interval


def _per_object_interval(stability, values):
    """Each object's interval (a result's ``per_object_low`` / ``per_object_high``), else NaN."""
    low = getattr(stability, "per_object_low", None)
    high = getattr(stability, "per_object_high", None)
    if low is None or high is None:
        return np.full(values.shape, np.nan), np.full(values.shape, np.nan)
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    if low.shape != values.shape or high.shape != values.shape:
        return np.full(values.shape, np.nan), np.full(values.shape, np.nan)
    return low, high


# ---------------------------------------------------------------------------- CD diagram
# Drawn from the rank test's result alone (duck-typed: this surface imports no measure).
_CD_FIELDS = ("average_ranks", "critical_difference", "names", "significance")


def _plot_cd_diagram_iv(result, significance, labels, colors):
    if not all(hasattr(result, name) for name in _CD_FIELDS):
        raise TypeError(f"`result` must be a FriedmanNemenyiResult from predstab.compare.friedman_nemenyi() "
                        f"or a BonferroniDunnResult from predstab.compare.bonferroni_dunn(); got "
                        f"{type(result).__name__}.")
    control = getattr(result, "control", None)
    if significance is not None and significance != result.significance:
        if control is not None:
            raise ValueError(f"`significance` of a Bonferroni-Dunn diagram is the test's "
                             f"({result.significance}); call bonferroni_dunn(..., "
                             f"significance={significance}) instead; got significance={significance}.")
        result = result.at_significance(significance)  # CD and cliques at the new level
    k = len(result.names)
    if labels is None:
        labels = list(result.names)
    elif isinstance(labels, dict):
        labels = [str(labels.get(n, n)) for n in result.names]
    else:
        labels = [str(x) for x in labels]
        if len(labels) != k:
            raise ValueError(f"`labels` must have one entry per method ({k}); got {len(labels)}.")
    if colors is None:
        colors = ["black"] * k
    elif isinstance(colors, str):
        colors = [colors] * k
    elif isinstance(colors, dict):
        colors = [colors.get(n, "black") for n in result.names]
    else:
        colors = list(colors)
        if len(colors) != k:
            raise ValueError(f"`colors` must have one entry per method ({k}); got {len(colors)}.")
    return result, control, labels, colors


@validate_params({"significance": [Interval(numbers.Real, 0, 1, closed="neither"), None],
                  "labels": ["array-like", dict, None], "colors": [str, "array-like", dict, None],
                  "ax": [None, HasMethods(["plot", "text", "set_xlim", "set_ylim", "axis"])],
                  "order": [Options(("best_left", "best_right"))], "show_cliques": ["boolean"],
                  "clique_color": [str], "title": [str, None],
                  "decimals": [Interval(numbers.Integral, 0, None)]},
                 renamed={"alpha": "significance"})
def plot_cd_diagram(result, /, *, significance=None, ax=None, labels=None, colors=None, order="best_left",
                    show_cliques=True, clique_color="black", title=None, decimals=2):
    """Critical-difference diagram (Demšar 2006) of a Friedman-Nemenyi or a Bonferroni-Dunn result.

    Methods hang from a rank axis at their average rank, best half on one side and the
    rest on the other; thick bars join groups of methods whose average ranks lie within the
    critical difference (not significantly different at ``result.significance``), and a bar
    on top shows the CD itself. For a Bonferroni–Dunn result (a control) one bar spans the
    control's average rank ± CD (Demšar's Fig. 2): methods outside it differ significantly
    from the control, whose name is set in bold. What ``result.plot()`` draws.

    Parameters
    ----------
    result : FriedmanNemenyiResult or BonferroniDunnResult
        Of :func:`predstab.compare.friedman_nemenyi` or :func:`predstab.compare.bonferroni_dunn`.
    significance : float, optional
        Significance level of the CD and cliques (default: ``result.significance``; a
        Friedman-Nemenyi result is taken to it by ``result.at_significance``).
    ax : matplotlib Axes, optional
        Axes to draw on (its figure is returned); a new figure is made if omitted.
    labels : sequence of str or dict, optional
        Display names (default: ``result.names``).
    colors : str, sequence or dict, optional
        Colour of each method's line and label.
    order : {"best_left", "best_right"}, default "best_left"
        Where rank 1 goes.
    show_cliques : bool, default True
        Draw the bars joining non-significantly different methods (the control's interval
        for a Bonferroni–Dunn result).
    clique_color : str, default "black"
    title : str, optional
        Defaults to "Critical difference (Nemenyi, alpha = ...): CD = ...".
    decimals : int, default 2
        Decimals of the average ranks printed next to the names.

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
    *JMLR* 7, 1-30. https://jmlr.org/papers/v7/demsar06a.html

    Draws what ``scmamp::plotCD`` draws in R (not part of the validated numbers).

    Examples
    --------
    >>> import numpy as np
    >>> from predstab import compare
    >>> ranks = np.array([[1, 2, 3]] * 3 + [[1, 3, 2]] + [[2, 1, 3]] * 5 + [[3, 1, 2]] * 2 + [[2, 3, 1]])
    >>> fig = plot_cd_diagram(compare.friedman_nemenyi(4 - ranks), labels=["A", "B", "C"])
    >>> fig.axes[0].get_title()
    'Critical difference (Nemenyi, alpha = 0.05): CD = 0.96'
    """
    result, control, labels, colors = _plot_cd_diagram_iv(result, significance, labels, colors)
    reverse = order == "best_right"
    k = len(labels)
    avg = np.asarray(result.average_ranks, dtype=float)
    cd = result.critical_difference
    n_side = math.ceil(k / 2)
    step = 0.9
    cliques = result.cliques() if (show_cliques and control is None) else []
    height = 2.2 + step * n_side * 0.45 + 0.25 * max(len(cliques), 1)
    fig, ax = _new_axes(ax, (max(6.0, 1.1 * k + 2.0), height))

    def x(r):  # rank -> plot coordinate
        return (k + 1 - r) if reverse else r

    outward = -1 if reverse else 1
    lo, hi = 1, k
    ax.plot([x(lo), x(hi)], [0, 0], color="black", lw=1.2)
    for t in range(1, k + 1):
        ax.plot([x(t), x(t)], [0, -0.12], color="black", lw=1.0)
        ax.text(x(t), -0.2, str(t), ha="center", va="bottom", fontsize=10)
    for t in np.arange(1.5, k, 1.0):
        ax.plot([x(t), x(t)], [0, -0.06], color="black", lw=0.8)
    # the CD bar, above the axis at the best end
    cd_y = -0.75
    ax.plot([x(1), x(1 + cd)], [cd_y, cd_y], color="black", lw=2)
    for end in (1, 1 + cd):
        ax.plot([x(end), x(end)], [cd_y - 0.07, cd_y + 0.07], color="black", lw=1.5)
    ax.text((x(1) + x(1 + cd)) / 2, cd_y - 0.1, f"CD = {cd:.{decimals}f}", ha="center", va="bottom",
            fontsize=10)
    # cliques: thick bars just below the axis
    index = {name: j for j, name in enumerate(result.names)}
    if control is not None and show_cliques:
        # Bonferroni-Dunn: the control's interval R_c +- CD; methods outside it differ from the control
        rc = avg[index[control]]
        lo_r, hi_r = max(1.0, rc - cd), min(float(k), rc + cd)
        ax.plot([x(lo_r), x(hi_r)], [0.25, 0.25], color=clique_color, lw=4, solid_capstyle="round")
        ax.plot([x(rc)], [0.25], marker="o", color="white", markeredgecolor=clique_color, ms=6)
    for c, members in enumerate(cliques):
        rs = [avg[index[m]] for m in members]
        y = 0.25 + 0.2 * c
        ax.plot([x(min(rs)) - 0.03 * outward, x(max(rs)) + 0.03 * outward], [y, y], color=clique_color, lw=4,
                solid_capstyle="round")
    # method labels: best half to the "best" side, the rest to the other side
    order_idx = np.argsort(avg, kind="stable")
    top = 0.45 + 0.2 * max(len(cliques), 1)
    left_x, right_x = x(lo) - 0.35 * outward, x(hi) + 0.35 * outward
    for pos, j in enumerate(order_idx):
        best_half = pos < n_side
        row = pos if best_half else (k - 1 - pos)
        y = top + step * 0.45 * row
        end_x = left_x if best_half else right_x
        ax.plot([x(avg[j]), x(avg[j]), end_x], [0, y, y], color=colors[j], lw=1.2)
        to_left = (end_x < x(avg[j]))
        ax.text(end_x + (-0.05 if to_left else 0.05), y, f"{labels[j]} ({avg[j]:.{decimals}f})",
                ha="right" if to_left else "left", va="center", fontsize=10, color=colors[j],
                fontweight="bold" if result.names[j] == control else "normal")
    bottom = top + step * 0.45 * (n_side - 1) + 0.4
    span = 0.35 + 0.12 * max(len(s) for s in labels) + 0.6
    ax.set_xlim(min(x(lo), x(hi)) - span, max(x(lo), x(hi)) + span)
    ax.set_ylim(bottom, cd_y - 0.45)
    ax.axis("off")
    test = "Nemenyi" if control is None else f"Bonferroni-Dunn vs {labels[index[control]]}"
    ax.set_title(title if title is not None else
                 f"Critical difference ({test}, alpha = {result.significance:g}): CD = {cd:.{decimals}f}",
                 fontsize=11)
    return fig


def plot(result, /, **kwargs):
    """Plot any predstab result with the function made for it; return the Figure.

    A :class:`~predstab.TuningResult` -> :func:`plot_stability_curve`; a
    :class:`~predstab.StabilityResult` (or anything with ``per_object``) ->
    :func:`plot_per_object`; a Friedman-Nemenyi or Bonferroni-Dunn result -> :func:`plot_cd_diagram`.
    Results' ``.plot(**kwargs)`` methods call this (or the function made for them).

    Examples
    --------
    >>> import predstab
    >>> result = predstab.phi([[1.0, 1.1, 0.9, 1.0, 1.2], [2.0, 2.6, 1.5, 2.2, 2.0], [3.0] * 5],
    ...                       [1.0, 2.0, 3.0, 4.0])
    >>> type(plot(result, n_labelled=1)).__name__
    'Figure'
    """
    if _is_tuning_result(result):
        return plot_stability_curve(result, **kwargs)
    if hasattr(result, "per_object"):
        return plot_per_object(result, **kwargs)
    if hasattr(result, "average_ranks") and hasattr(result, "critical_difference"):
        return plot_cd_diagram(result, **kwargs)
    raise TypeError(f"`result` must be a TuningResult, a StabilityResult or a Friedman-Nemenyi result; "
                    f"got {type(result).__name__}.")

