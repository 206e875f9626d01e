"""Figures readable at the sizes users have (issue 35, items 8 and 9): the per-object plot at 10,
115 and 5,000 objects (the least stable one by one and named, the others summarised), and a long
title that never runs under the legend."""

import numpy as np
import pytest

import predstab
from predstab.plotting import plot_per_object, plot_stability_curve
from tests.surfaces.test_plotting import _check_layout, points_drawn


def _texts_clear(fig):
    """Every text of the figure lies inside it, and the title, tick labels, axis labels, names and
    legend overlap one another nowhere."""
    fig.draw_without_rendering()
    ax = fig.axes[0]
    frame = fig.bbox
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts,
             *(t for t in ax.get_xticklabels() if t.get_text())]
    boxes = [(t.get_text(), t.get_window_extent()) for t in texts if t.get_text()]
    if fig.legends:
        boxes.append(("legend", fig.legends[0].get_window_extent()))
    for name, box in boxes:
        assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1 and frame.y0 - 1 <= box.y0 \
            and box.y1 <= frame.y1 + 1, f"{name!r} leaves the figure"
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            assert not boxes[a][1].overlaps(boxes[b][1]), (boxes[a][0], boxes[b][0])


def _classes(n_objects, unstable, rng):
    """psi of n_objects two-class objects, ten refits each; the objects in ``unstable`` flip in some."""
    pred = np.repeat(rng.choice(["benign", "malignant"], size=(n_objects, 1)), 10, axis=1).astype(object)
    other = {"benign": "malignant", "malignant": "benign"}
    for i, flips in unstable.items():
        pred[i, :flips] = other[pred[i, 0]]
    return predstab.psi(pred, rng.choice(["benign", "malignant"], size=(300, 10)), scale="categorical")


@pytest.mark.parametrize("n_objects", [10, 115, 5000])
def test_per_object_plot_is_readable_for_classes(n_objects):
    rng = np.random.default_rng(n_objects)
    unstable = {3: 4, 7: 1, 8: 2} if n_objects > 10 else {3: 4, 7: 1}
    result = _classes(n_objects, unstable, rng)
    below = np.flatnonzero(result.per_object < 1)
    assert set(below) == set(unstable)  # only the flipped objects fall below psi = 1
    fig = plot_per_object(result)
    ax = fig.axes[0]
    least = list(np.argsort(result.per_object, kind="stable")[:below.size])
    # the least stable named (never one at psi = 1); nothing else written over the data
    assert [t.get_text() for t in ax.texts] == [str(i) for i in least]
    if n_objects <= 40:  # every object one by one
        np.testing.assert_allclose(points_drawn(ax), np.sort(result.per_object), rtol=1e-12)
        assert not ax.get_xticklabels() or not ax.get_xticklabels()[0].get_text()
    else:  # the least stable one by one, the others summarised in one box, named under it
        np.testing.assert_allclose(points_drawn(ax), np.sort(result.per_object)[:below.size], rtol=1e-12)
        (tick,) = [t.get_text() for t in ax.get_xticklabels()]
        assert tick == f"the other {n_objects - below.size}\n(all at 1)"
        assert ax.get_xlabel() == f"objects, least stable first ({below.size} of {n_objects} one by one)"
    # no bar from the axis: whiskers are never hidden behind a bar (the box is the only patch)
    assert len(ax.patches) == (0 if n_objects <= 40 else 1)
    _check_layout(fig)
    _texts_clear(fig)


@pytest.mark.parametrize("n_objects", [10, 115, 5000])
def test_per_object_plot_is_readable_for_numbers(n_objects):
    rng = np.random.default_rng(n_objects + 1)
    pred = rng.normal(size=(n_objects, 1)) * 3 + rng.normal(size=(n_objects, 6)) * rng.gamma(
        2, 0.2, size=(n_objects, 1))
    result = predstab.phi(pred, rng.normal(0, 3, size=500))
    fig = plot_per_object(result, labels=[f"plot {i}" for i in range(n_objects)])
    ax = fig.axes[0]
    order = np.argsort(result.per_object, kind="stable")
    shown = min(n_objects, 30) if n_objects > 40 else n_objects
    np.testing.assert_allclose(points_drawn(ax), result.per_object[order[:shown]], rtol=1e-12)
    assert [t.get_text() for t in ax.texts] == [f"plot {i}" for i in order[:5]]
    # every interval drawn whole: the axis reaches below the lowest lower end and above 1
    (intervals,) = [c for c in ax.collections if c.get_label() == "95% interval"]
    assert len(intervals.get_segments()) == shown
    low, high = ax.get_ylim()
    assert low < np.min(result.per_object_low[order[:shown]]) and high > 1.0
    if n_objects > 40:
        (tick,) = [t.get_text() for t in ax.get_xticklabels()]
        assert tick == f"the other {n_objects - shown}\n(box: quartiles, range)"
        (box,) = ax.patches
        drawn = box.get_path().vertices[:, 1]
        rest = np.sort(result.per_object[order[shown:]])
        np.testing.assert_allclose([drawn.min(), drawn.max()], np.percentile(rest, [25, 75]), rtol=1e-9)
    _check_layout(fig)
    _texts_clear(fig)


def test_a_long_title_never_runs_under_the_legend():
    # the breast_cancer demo: "benign" was hidden under the legend beside the axes
    n = np.array([2, 5, 10, 25, 50, 100, 250])
    curves = {"fleiss": 1 - 0.3 / np.sqrt(n), "phi": 1 - 0.29 / np.sqrt(n), "psi": 1 - 0.28 / np.sqrt(n)}
    title = "Stability vs number of trees — breast cancer: malignant / benign"
    fig = plot_stability_curve(n, curves, recommended={"fleiss": 2000, "phi": 2000, "psi": 2000}, title=title)
    assert " ".join(fig.axes[0].get_title().split()) == title  # wrapped, every word kept
    _texts_clear(fig)
    per = plot_per_object(_classes(115, {3: 4}, np.random.default_rng(9)),
                          title="psi per test object, 250 trees\n(least stable labelled by 0-based row of "
                                "load_breast_cancer())")
    _texts_clear(per)


# --- the tuning plot: the bands of every measure at one n are seen (issue 35) ----------------------

def _bands(fig):
    """Per measure: the display x (pixels) of its bar at each n, and half the width of its caps."""
    from matplotlib.container import ErrorbarContainer

    fig.draw_without_rendering()
    ax = fig.axes[0]
    out = {}
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer):
            points, caps, _ = c.lines
            xy = np.column_stack([points.get_xdata(), points.get_ydata()]).astype(float)
            x = points.get_transform().transform(xy)[:, 0]
            out[c.get_label()] = (x, caps[0].get_markersize() / 2 * fig.dpi / 72)
    return out


@pytest.mark.parametrize("n, caps", [(np.array([1, 2, 4, 8]), 2.5), (np.array([1, 5, 25, 100, 400]), 2.5),
                                     (np.arange(1, 16), None), (np.arange(1, 26), None)],
                         ids=["4 n", "log axis", "15 n", "25 n on a log axis"])
def test_error_bars_of_measures_at_one_n_never_overlap(n, caps):
    # four measures at exactly the same values and bands (a converged classifier: all at 1): each
    # one's bar and caps stand clear of the others', and each n's group clear of the next n's
    centre = 1 - 0.3 / np.sqrt(n)
    curves = {m: centre for m in ("icc", "phi", "psi", "fleiss")}
    errors = {m: np.vstack([centre - 0.05, np.minimum(centre + 0.05, 1)]) for m in curves}
    fig = plot_stability_curve(n, curves, errors=errors, title="four measures, one band")
    bands = _bands(fig)
    assert list(bands) == list(curves)
    x = np.array([bands[m][0] for m in curves])  # measures x n
    half = max(h for _, h in bands.values())
    if caps is not None:  # a sparse grid keeps its caps whole (2.5 points either side)
        assert half == pytest.approx(caps * fig.dpi / 72)
    for j in range(len(n)):
        at_n = np.sort(x[:, j])
        assert np.all(np.diff(at_n) >= 2 * half + 1), (n[j], at_n)  # caps (if any) 1 px clear of each other
    groups = np.sort(x, axis=0)
    assert np.all(groups[0, 1:] - groups[-1, :-1] > 2 * half), "groups of neighbouring n touch"
    # the group is centred on n: its mean is where n is drawn
    ax = fig.axes[0]
    at = ax.transData.transform(np.column_stack([n, centre]))[:, 0]
    np.testing.assert_allclose(x.mean(axis=0), at, atol=1e-6)
