"""Plots render to PNG headlessly (Agg) and show what they claim to show."""

from __future__ import annotations

import io

import numpy as np
import pytest

import predstab
from predstab.plotting import plot_per_object, plot_stability_curve

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_bytes(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def legend_texts(fig):
    """The labels of the figure's legend (beside the axes) or of its axes' legend."""
    legend = fig.legends[0] if fig.legends else fig.axes[0].get_legend()
    return [t.get_text() for t in legend.get_texts()]


def curve(n, p1, p2):
    return 1 / (1 + (p1 / np.asarray(n, dtype=float)) ** p2)


def test_stability_curve_points_errors_fits_and_recommendation():
    n = np.array([25, 50, 100, 200, 400, 800])
    rng = np.random.default_rng(0)
    repeated = curve(n, 60, 1.0)[:, None] + rng.normal(0, 0.01, (6, 5))  # 5 measurements per n
    fit = predstab.fit_2pl(n, repeated.mean(axis=1))
    fig = plot_stability_curve(n, {"ICC(1)": repeated, "phi": curve(n, 3, 1.1)},
                               fits={"ICC(1)": fit, "phi": (3, 1.1)},
                               recommended={"ICC(1)": 2000, "phi": 500}, title="t")
    assert png_bytes(fig)[:8] == PNG_MAGIC
    ax = fig.axes[0]
    assert legend_texts(fig) == ["recommended for phi: 500", "recommended for ICC(1): 2000", "ICC(1)", "phi"]
    assert ax.get_xscale() == "log"
    assert len(ax.texts) == 0  # the recommendations are told in the legend beside the axes
    # the fitted curve is drawn through the fitted parameters: check it at its last point
    line = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-" and len(ln.get_xdata()) == 200][0]
    x, y = line.get_xdata()[-1], line.get_ydata()[-1]
    assert y == pytest.approx(1 / (1 + (fit.p1 / x) ** fit.p2))
    # error bars from the 5 measurements: one standard deviation around the mean
    container = ax.containers[0]
    segments = container.lines[2][0].get_segments()
    assert segments[0][1][1] - segments[0][0][1] == pytest.approx(2 * repeated[0].std(ddof=1))


def test_stability_curve_interval_errors_and_shared_recommendation():
    n = [10, 20, 40]
    values = curve(n, 5, 1)
    errors = np.vstack([values - 0.01, np.minimum(values + 0.02, 1)])
    fig = plot_stability_curve(n, {"psi": values, "phi": values}, errors={"psi": errors},
                               recommended={"psi": 500, "phi": 500}, ax=None)
    assert "recommended for psi, phi: 500" in legend_texts(fig)
    assert fig.axes[0].get_xscale() == "log"  # the recommendation is 12.5x the largest grid value


def test_stability_curve_into_given_axes():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    assert plot_stability_curve([1, 2, 3], [0.5, 0.6, 0.7], ax=ax) is fig
    assert ax.get_xscale() == "linear"


@pytest.mark.parametrize("kwargs, match", [
    ({"n": [0, 1, 2]}, "`n`"),
    ({"stability": {"phi": [0.1, 0.2]}}, "stability"),
    ({"fits": {"psi": (1, 1)}}, "`fits`"),
    ({"errors": {"psi": [0.1, 0.1, 0.1]}}, "`errors`"),
])
def test_stability_curve_bad_input(kwargs, match):
    args = {"n": [1, 2, 3], "stability": {"phi": [0.5, 0.6, 0.7]}} | kwargs
    with pytest.raises(ValueError, match=match):
        plot_stability_curve(args.pop("n"), args.pop("stability"), **args)


def points_drawn(ax):
    """The values the per-object plot draws one by one (its point markers), left to right."""
    lines = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    x = np.concatenate([ln.get_xdata() for ln in lines])
    y = np.concatenate([ln.get_ydata() for ln in lines])
    return y[np.argsort(x, kind="stable")]


def test_per_object_labels_the_least_stable_objects():
    values = np.array([0.99, 0.42, 0.97, np.nan, 0.88, 0.10])
    names = ["a", "b", "c", "d", "e", "f"]
    fig = plot_per_object(values, labels=names, n_labelled=2, threshold=0.9)
    assert png_bytes(fig)[:8] == PNG_MAGIC
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts] == ["f", "b"]
    heights = list(points_drawn(ax))
    assert heights == sorted(heights) and len(heights) == 5  # NaN left out, sorted
    assert heights == [0.10, 0.42, 0.88, 0.97, 0.99]
    assert "1 undefined" in ax.get_title()


def test_per_object_histogram_from_a_stability_result():
    rng = np.random.default_rng(1)
    pred = rng.normal(size=(40, 6)) * np.linspace(0.1, 3, 40)[:, None]
    result = predstab.phi(pred, rng.normal(scale=3, size=200))
    fig = plot_per_object(result, kind="hist", n_labelled=3)
    assert png_bytes(fig)[:8] == PNG_MAGIC
    worst = np.argsort(result.per_object)[:3]  # 0-based, as per_object_frame()'s index
    assert [t.get_text() for t in fig.axes[0].texts] == [str(i) for i in worst]
    assert list(result.per_object_frame().index[:3]) == list(worst)
    assert fig.axes[0].get_title().startswith("phi")


@pytest.mark.parametrize("kwargs, match", [
    ({"kind": "pie"}, "`kind`"),
    ({"labels": ["a"]}, "`labels`"),
    ({"n_labelled": -1}, "`n_labelled`"),
])
def test_per_object_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        plot_per_object([0.5, 0.6], **kwargs)


def test_empty_per_object_is_an_error():
    with pytest.raises(ValueError, match="`stability`"):
        plot_per_object([])


# --------------------------------------------------------------------------- issue 13, items 10-11
def test_per_object_names_objects_by_the_inputs_row_labels():
    import pandas as pd

    rng = np.random.default_rng(2)
    pred = pd.DataFrame(rng.normal(size=(6, 5)) * [[0.1], [2.0], [0.1], [0.1], [3.0], [0.1]],
                        index=["ann", "bob", "cy", "dee", "eve", "flo"])
    result = predstab.phi(pred, rng.normal(scale=2, size=100))
    fig = plot_per_object(result, n_labelled=2)
    shown = [t.get_text() for t in fig.axes[0].texts]
    assert shown == list(result.per_object_frame().index[:2]) == ["eve", "bob"]


@pytest.fixture(scope="module")
def tuning():
    import warnings

    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import RandomForestRegressor

    X, y = load_diabetes(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small pool for a fast test
        return predstab.tune_num_learners(RandomForestRegressor(min_samples_leaf=5), X[:200], y[:200],
                                          X[200:260], grid=(5, 10, 20, 40), n_repeats=3, n_resamples=0,
                                          measures=("icc", "phi", "psi"), random_state=0)


def test_stability_curve_from_a_tuning_result(tuning):
    fig = plot_stability_curve(tuning)
    ax = fig.axes[0]
    assert legend_texts(fig)[-3:] == ["icc", "phi", "psi"]
    assert f"recommended for icc: {tuning.recommendation}" in legend_texts(fig)
    # each measure's points are the table's values at its grid
    for container, name in zip(ax.containers, ["icc", "phi", "psi"], strict=True):
        x, y = container.lines[0].get_data()
        np.testing.assert_allclose(x, tuning.table["n_learners"])
        np.testing.assert_allclose(y, tuning.table[name])
    # the 2PL lines are the result's fits
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 200]
    assert len(lines) == 3
    x, y = lines[0].get_xdata()[-1], lines[0].get_ydata()[-1]
    fit = tuning.fits["icc"]
    assert y == pytest.approx(1 / (1 + (fit.p1 / x) ** fit.p2))
    with pytest.raises(TypeError, match="`stability` must be omitted"):
        plot_stability_curve(tuning, [0.5, 0.6, 0.7, 0.8])
    with pytest.raises(TypeError, match="`stability` is needed"):
        plot_stability_curve([1, 2, 3])


def test_plot_dispatches_and_every_plot_is_a_figure(tuning):
    from matplotlib.figure import Figure

    from predstab import compare
    from predstab.plotting import plot, plot_cd_diagram

    rng = np.random.default_rng(0)
    ranks = compare.friedman_nemenyi(rng.normal(size=(12, 3)) + [0.0, 0.5, 1.0])
    stability = predstab.phi(rng.normal(size=(20, 5)), rng.normal(size=50))
    figures = [plot(tuning), plot(stability), plot(ranks), plot_cd_diagram(ranks),
               plot_stability_curve(tuning), plot_per_object(stability)]
    assert all(isinstance(f, Figure) for f in figures)
    assert [t.get_text() for t in figures[1].axes[0].texts] == [
        t.get_text() for t in figures[5].axes[0].texts]
    assert png_bytes(figures[2])[:8] == PNG_MAGIC
    with pytest.raises(TypeError, match="`result`"):
        plot([1, 2, 3])


def test_equally_stable_objects_are_not_named_and_coinciding_curves_stay_visible():
    fig = plot_per_object(np.ones(12), n_labelled=5)
    assert len(fig.axes[0].texts) == 0  # all at 1.000: none is "least stable"
    fig = plot_per_object([1.0, 0.9, 1.0, 1.0], n_labelled=3)
    assert [t.get_text() for t in fig.axes[0].texts] == ["1"]
    n = [50, 100, 200]
    fig = plot_stability_curve(n, {"fleiss": [1, 1, 1], "phi": [1, 1, 1], "psi": [1, 1, 1]})
    lines = [c.lines[0] for c in fig.axes[0].containers]
    assert [ln.get_marker() for ln in lines] == ["o", "s", "^"]
    sizes = [ln.get_markersize() for ln in lines]
    assert sizes == sorted(sizes, reverse=True)  # drawn on top of each other, later ones smaller
    assert all(ln.get_markerfacecolor() == "none" for ln in lines)


def test_coinciding_fitted_curves_stay_visible():
    # wine: kappa, phi and psi fit the same 2PL curve; the lines drawn later must not hide it:
    # solid (dashes mean a recommendation), each later one narrower and on top
    n = [2, 5, 10, 25, 50]
    values = curve(n, 0.93, 1.68)
    fig = plot_stability_curve(n, {"fleiss": values, "phi": values, "psi": values},
                               fits={"fleiss": (0.95, 1.70), "phi": (0.93, 1.68), "psi": (0.93, 1.68)})
    lines = [ln for ln in fig.axes[0].get_lines() if len(ln.get_xdata()) == 200]
    assert [ln.get_linestyle() for ln in lines] == ["-", "-", "-"]
    assert [ln.get_linewidth() for ln in lines] == [3.0, 2.25, 1.5]
    assert [ln.get_zorder() for ln in lines] == [2, 3, 4]


def test_tuning_result_degenerate_points_are_a_series_of_their_own():
    import pandas as pd

    from predstab.plotting import _from_tuning_result

    class Tuned:  # the parts of a TuningResult the plot reads
        table = pd.DataFrame({"n_learners": [5, 10, 50], "fleiss": [0.2, 0.5, 1.0], "phi": [0.6, 0.8, 0.95],
                              "degenerate": ["", "", "fleiss"], "seconds": [0.1, 0.2, 1.0]})
        fits = {"fleiss": (3.0, 1.0), "phi": (1.0, 1.0)}
        measures = ("fleiss", "phi")
        recommendation, primary, bands = None, "fleiss", None

    n, stability, errors, fits, recommended, _, _ = _from_tuning_result(Tuned(), None, None, None, None)
    assert list(stability) == ["fleiss", "fleiss: degenerate, 0/0 set to 1", "phi"]
    np.testing.assert_array_equal(stability["fleiss"], [0.2, 0.5, np.nan])
    np.testing.assert_array_equal(stability["fleiss: degenerate, 0/0 set to 1"], [np.nan, np.nan, 1.0])
    assert errors == {} and recommended is None
    fig = plot_stability_curve(Tuned())
    assert legend_texts(fig) == list(stability)


def test_results_plot_themselves(tuning):
    # item 11: TuningResult, StabilityResult and a Friedman-Nemenyi result have .plot()
    from predstab import compare

    rng = np.random.default_rng(0)
    ranks = compare.friedman_nemenyi(rng.normal(size=(12, 3)) + [0.0, 0.5, 1.0])
    stability = predstab.phi(rng.normal(size=(20, 5)), rng.normal(size=50))
    curve_fig = tuning.plot()
    assert legend_texts(curve_fig)[-3:] == ["icc", "phi", "psi"]
    assert [t.get_text() for t in stability.plot(n_labelled=2).axes[0].texts] == [
        t.get_text() for t in plot_per_object(stability, n_labelled=2).axes[0].texts]
    assert len(ranks.plot().axes) == 1


# --------------------------------------------------------------------------- layout (issue 22, item 23)
def _display_points(ax):
    """Every drawn point of every line and error bar of ``ax``, in display (pixel) coordinates."""
    from matplotlib.collections import LineCollection

    points = []
    for line in ax.get_lines():
        xy = np.column_stack(line.get_data()).astype(float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) and line.get_transform() is ax.transData:
            points.append(ax.transData.transform(xy))
    for coll in ax.collections:
        if isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                # the whole bar, sampled, not only its ends
                t = np.linspace(0, 1, 50)[:, None]
                points.append(ax.transData.transform(seg[0] + t * (seg[-1] - seg[0])))
    for patch in ax.patches:
        box = patch.get_window_extent()
        if box.width > 0 and box.height > 0:
            points.append(np.array([[box.x0, box.y1], [box.x1, box.y1], [(box.x0 + box.x1) / 2, box.y1]]))
    return np.vstack(points)


def _inside(box, points, margin=0.0):
    return ((points[:, 0] >= box.x0 - margin) & (points[:, 0] <= box.x1 + margin)
            & (points[:, 1] >= box.y0 - margin) & (points[:, 1] <= box.y1 + margin))


def _check_layout(fig):
    """Texts overlap neither each other nor the data; the legend covers no data."""
    fig.draw_without_rendering()
    ax = fig.axes[0]
    points = _display_points(ax)
    boxes = [t.get_window_extent() for t in ax.texts]
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            assert not boxes[a].overlaps(boxes[b]), (ax.texts[a].get_text(), ax.texts[b].get_text())
    legend = fig.legends[0] if fig.legends else ax.get_legend()
    if legend is not None:
        assert not _inside(legend.get_window_extent(), points).any(), "the legend covers data"
    return points


def test_default_figures_are_a_readable_size():
    # item 23: the figures were 640 x 420 px
    fig = plot_per_object([0.99, 0.42, 0.97, 0.88])
    width, height = fig.get_size_inches() * fig.dpi
    assert (width, height) == (960, 600)
    assert png_bytes(fig)[16:24] == (960).to_bytes(4, "big") + (600).to_bytes(4, "big")  # the PNG's IHDR


def test_recommendation_label_is_not_crossed_by_the_curves(tuning):
    # item 23: the recommendation's label was written along its line, across the fitted curves
    n = np.array([25, 50, 100, 200, 400, 800])
    fig = plot_stability_curve(n, {"ICC(1)": curve(n, 60, 1.0), "phi": curve(n, 3, 1.1)},
                               fits={"ICC(1)": (60, 1.0), "phi": (3, 1.1)},
                               recommended={"ICC(1)": 2000, "phi": 500})
    points = _check_layout(fig)
    for text in fig.axes[0].texts:  # none today; any label added later must keep clear of the curves
        assert not _inside(text.get_window_extent(), points).any(), text.get_text()
    assert legend_texts(fig)[:2] == ["recommended for phi: 500", "recommended for ICC(1): 2000"]
    _check_layout(tuning.plot())


def test_per_object_labels_never_overlap():
    # item 23: objects of (nearly) equal stability printed over each other ("52/62")
    values = np.array([0.50, 0.50, 0.501, 0.9, 0.95, 0.97, 0.99, 0.99, 1.0, 0.7])
    hist = plot_per_object(values, kind="hist", n_labelled=4)
    _check_layout(hist)
    assert [t.get_text() for t in hist.axes[0].texts] == ["0", "1", "2", "9"]  # every one kept, in rows
    many = plot_per_object(np.linspace(0.3, 1.0, 400), n_labelled=20)
    _check_layout(many)
    # issue 35: 400 objects: the 30 least stable one by one, the 20 least stable named above them
    assert [t.get_text() for t in many.axes[0].texts] == [str(i) for i in range(20)]
    assert many.axes[0].get_xlabel() == "objects, least stable first (30 of 400 one by one)"
    narrow = plot_per_object(np.linspace(0.3, 1.0, 400), n_labelled=30, labels=[f"object {i:03d}" for i in
                                                                                range(400)])
    _check_layout(narrow)


def test_threshold_line_is_labelled():
    # item 23: the threshold= line had no label
    for kind in ("bar", "hist"):
        fig = plot_per_object([0.99, 0.42, 0.97, 0.88, 0.95], kind=kind, threshold=0.9)
        assert legend_texts(fig) == ["threshold 0.9"]
        line = next(ln for ln in fig.axes[0].get_lines() if ln.get_label() == "threshold 0.9")
        assert set(line.get_ydata() if kind == "bar" else line.get_xdata()) == {0.9}
        _check_layout(fig)


def test_single_object_plot_shows_its_interval():
    # item 23: one object's .plot() was one bar without its interval
    preds = np.array([[10.0, 10.4, 9.7, 10.1, 9.9, 10.6, 9.5, 10.2]])
    result = predstab.phi(preds, np.arange(1.0, 21.0))
    fig = result.plot()
    ax = fig.axes[0]
    (bars,) = [c for c in ax.collections if c.get_label() == "95% interval"]
    (segment,) = bars.get_segments()
    np.testing.assert_allclose(segment[:, 1], [result.per_object_low[0], result.per_object_high[0]],
                               rtol=1e-12)
    interval = (result.per_object_low[0], result.per_object_high[0])
    np.testing.assert_allclose(result.confidence_interval, interval)
    low, high = ax.get_ylim()
    assert low < result.per_object_low[0] and result.per_object_high[0] < high  # the whole interval shows
    assert ax.get_title() == (f"phi per object: {result.value:.4f} "
                              f"(95% interval {interval[0]:.4f} to {interval[1]:.4f})")
    assert legend_texts(fig) == ["95% interval"]
    _check_layout(fig)


def test_per_object_intervals_are_drawn_as_the_result_holds_them():
    # categorical phi of objects whose refits disagree more than the baseline does: negative
    # estimates, which their intervals reach down to (issue 21); whiskers drawn low to high, no crash
    rng = np.random.default_rng(0)
    preds = rng.choice(["a", "b"], size=(20, 6), p=[0.8, 0.2]).astype(object)
    preds[:5] = "a"
    result = predstab.phi(preds, rng.choice(["a", "b"], size=50), scale="categorical")
    assert np.any(result.per_object < 0)  # the case this test is about
    assert np.all(result.per_object_low <= result.per_object)
    assert np.all(result.per_object <= result.per_object_high)
    fig = result.plot(n_labelled=3)
    (bars,) = [c for c in fig.axes[0].collections if c.get_label() == "95% interval"]
    order = np.argsort(result.per_object, kind="stable")
    ends = np.array([seg[:, 1] for seg in bars.get_segments()])
    np.testing.assert_allclose(ends, np.c_[result.per_object_low[order], result.per_object_high[order]],
                               rtol=1e-12)
    _check_layout(fig)


def test_stability_curve_names_what_n_counts(tuning):
    # issue 25: a pool of networks or MCMC draws is not a number of trees
    fig = plot_stability_curve([1, 2, 4, 8], {"phi": [0.5, 0.67, 0.8, 0.89]}, recommended=9)
    assert fig.axes[0].get_xlabel() == "number of trees"
    assert "recommended: 9" in legend_texts(fig)
    fig = plot_stability_curve([1, 2, 4, 8], {"phi": [0.5, 0.67, 0.8, 0.89]}, xlabel="networks")
    assert fig.axes[0].get_xlabel() == "networks"
    fig = tuning.plot(xlabel="networks in the ensemble")
    assert fig.axes[0].get_xlabel() == "networks in the ensemble"
    assert fig.axes[0].get_title().startswith("stability against the networks in the ensemble (")
