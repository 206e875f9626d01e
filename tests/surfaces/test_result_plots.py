"""Results' ``.plot()`` (issue 13, item 11): TuningResult, StabilityResult and the Friedman-Nemenyi
result each return a Figure whose drawing holds the result's own numbers."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from sklearn.datasets import make_regression  # noqa: E402
from sklearn.ensemble import RandomForestRegressor  # noqa: E402

import predstab  # noqa: E402
from predstab import compare, plotting  # noqa: E402


@pytest.fixture(scope="module")
def tuning():
    X, y = make_regression(90, 5, noise=15, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return predstab.tune_num_learners(RandomForestRegressor(max_features=2), X[:60], y[:60], X[60:],
                                          grid=(4, 8, 16, 32), n_repeats=3, measures=("icc", "phi"),
                                          pool_size=96, n_resamples=20, random_state=0)


def _errorbars(ax):
    return {c.get_label(): c for c in ax.containers if isinstance(c, ErrorbarContainer)}


def test_tuning_result_plot_draws_the_table_the_fits_and_the_recommendation(tuning):
    fig = tuning.plot()
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    bars = _errorbars(ax)
    assert sorted(bars) == ["icc", "phi"]
    fig.draw_without_rendering()
    step = 7 * fig.dpi / 72  # the measures at one n, 7 points apart (in pixels), centred on n
    for i, (m, container) in enumerate(bars.items()):
        points = container.lines[0]
        n = tuning.table["n_learners"].to_numpy(float)
        np.testing.assert_array_equal(points.get_xdata(), n)  # the data keep their n ...
        # ... drawn dodged: icc half a step left of n, phi half a step right (2 measures)
        xy = np.column_stack([n, tuning.table[m].to_numpy(float)])
        drawn = points.get_transform().transform(xy)[:, 0]
        np.testing.assert_allclose(drawn - ax.transData.transform(xy)[:, 0], (i - 0.5) * step, atol=1e-6)
        np.testing.assert_array_equal(points.get_ydata(), tuning.table[m].to_numpy(float))
        # the error bars are the table's band: segment ends at <m>_low and <m>_high
        segments = container.lines[2][0].get_segments()
        np.testing.assert_allclose([s[0][1] for s in segments], tuning.table[f"{m}_low"], rtol=1e-12)
        np.testing.assert_allclose([s[1][1] for s in segments], tuning.table[f"{m}_high"], rtol=1e-12)
    # the 2PL fits: solid lines through 1 / (1 + (p1 / n)^p2) of each measure's fit
    fitted = [line for line in ax.get_lines() if line.get_linestyle() == "-" and len(line.get_xdata()) == 200]
    assert len(fitted) == 2
    for line, m in zip(fitted, ("icc", "phi"), strict=True):
        n = line.get_xdata()
        p1, p2 = tuning.fits[m].p1, tuning.fits[m].p2
        np.testing.assert_allclose(line.get_ydata(), 1 / (1 + (p1 / n) ** p2), rtol=1e-10)
    # the recommendation: a dashed vertical line at it
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert tuning.recommendation in {float(line.get_xdata()[0]) for line in dashed}
    # the same drawing as the plotting function given the result
    again = _errorbars(plotting.plot_stability_curve(tuning).axes[0])
    for m in bars:
        np.testing.assert_array_equal(again[m].lines[0].get_ydata(), bars[m].lines[0].get_ydata())


def test_tuning_result_plot_passes_its_keywords_on(tuning):
    fig, ax = plt.subplots()
    assert tuning.plot(ax=ax, title="my curves", logx=True) is fig
    assert ax.get_title() == "my curves" and ax.get_xscale() == "log"


def test_stability_result_plot_draws_each_objects_value():
    predictions = np.array([[1.0, 1.1, 0.9, 1.0], [2.0, 2.6, 1.5, 2.2], [3.0, 3.0, 3.1, 2.9],
                            [4.0, 1.0, 6.0, 2.5]])
    res = predstab.phi(predictions, [1.0, 2.0, 3.0, 4.0, 5.0])
    fig = res.plot(n_labelled=1)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    from tests.surfaces.test_plotting import points_drawn

    np.testing.assert_allclose(points_drawn(ax), np.sort(res.per_object), rtol=1e-12)  # least stable first
    # the least stable object (row 3: replicates 4, 1, 6, 2.5) is the one named
    assert int(np.argmin(res.per_object)) == 3
    assert [t.get_text() for t in ax.texts] == ["3"]
    assert ax.get_ylabel() == "phi per object"


def test_friedman_nemenyi_plot_is_the_cd_diagram_as_a_figure():
    scores = np.array([[0.80, 0.70, 0.60], [0.90, 0.75, 0.70], [0.85, 0.80, 0.65], [0.70, 0.72, 0.50],
                       [0.88, 0.70, 0.69]])
    res = compare.friedman_nemenyi(scores)
    fig = res.plot(labels=["A", "B", "C"])
    assert isinstance(fig, Figure)
    texts = {t.get_text() for t in fig.axes[0].texts}
    # average ranks by hand: A is best on 4 of 5 data sets and second on one
    ranks = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3], [2, 1, 3], [1, 2, 3]], dtype=float).mean(axis=0)
    np.testing.assert_allclose(res.average_ranks, ranks)
    assert {f"A ({ranks[0]:.2f})", f"B ({ranks[1]:.2f})", f"C ({ranks[2]:.2f})"} <= texts
    assert f"CD = {res.critical_difference:.2f}" in texts
    # what predstab.plotting.plot draws for the same result
    assert {t.get_text() for t in plotting.plot(res, labels=["A", "B", "C"]).axes[0].texts} == texts
