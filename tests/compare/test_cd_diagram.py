"""The critical-difference diagrams of predstab.plotting.plot_cd_diagram (and the results'
.plot()): what is drawn, the significance level, the control's band, bad input.
"""

import numpy as np
import pytest
from scipy import stats

from predstab import compare
from tests.compare._examples import RANKS


def test_cd_diagram_renders(tmp_path):
    from matplotlib.figure import Figure

    from predstab.plotting import plot_cd_diagram

    r = compare.friedman_nemenyi(4 - RANKS)
    fig = plot_cd_diagram(r, labels=["Random forest", "Boosting", "Logistic"],
                          colors={"method 1": "C0"}, order="best_right")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    out = tmp_path / "cd.png"
    fig.savefig(out, dpi=80)
    assert out.stat().st_size > 5000
    texts = [t.get_text() for t in ax.texts]
    assert "Boosting (1.58)" in texts and "CD = 0.96" in texts
    # a stricter significance level widens the CD: the one significant gap (1.00) is no longer significant
    ax = plot_cd_diagram(r, significance=0.01).axes[0]
    texts = [t.get_text() for t in ax.texts]
    cd01 = compare.friedman_nemenyi(4 - RANKS, significance=0.01).critical_difference
    assert f"CD = {cd01:.2f}" in texts and cd01 > 1.0
    assert r.at_significance(0.01) == compare.friedman_nemenyi(4 - RANKS, significance=0.01)
    with pytest.raises(ValueError, match="`significance`"):
        plot_cd_diagram(r, significance=2.0)
    with pytest.raises(ValueError, match="`order`"):
        plot_cd_diagram(r, order="left")
    with pytest.raises(ValueError, match="`labels`"):
        plot_cd_diagram(r, labels=["a"])
    with pytest.raises(TypeError, match="`result`"):
        plot_cd_diagram({"x": 1})


def test_cd_diagram_with_a_control():
    from predstab.plotting import plot_cd_diagram

    r = compare.bonferroni_dunn(4 - RANKS, control=2, significance=0.05)
    # CD = z_{1 - 0.05 / 4} sqrt(k (k + 1) / (6 N)) = 2.2414 * sqrt(12 / 72)
    assert r.critical_difference == pytest.approx(stats.norm.isf(0.0125) * np.sqrt(1 / 6), rel=1e-12)
    ax = plot_cd_diagram(r, labels=["A", "B", "C"]).axes[0]
    assert ax.get_title() == "Critical difference (Bonferroni-Dunn vs C, alpha = 0.05): CD = 0.92"
    # the control's band: from R_c - CD (clipped at rank 1) to R_c + CD (clipped at k = 3)
    rc = 31 / 12
    band = [line for line in ax.lines if line.get_linewidth() == 4]
    assert len(band) == 1
    np.testing.assert_allclose(band[0].get_xdata(), [rc - r.critical_difference, 3.0], rtol=1e-12)
    bold = [t.get_text() for t in ax.texts if t.get_fontweight() == "bold"]
    assert bold == ["C (2.58)"]
    drawn_by_the_result = r.plot(labels=["A", "B", "C"]).axes[0]
    assert [t.get_text() for t in drawn_by_the_result.texts] == [t.get_text() for t in ax.texts]
    with pytest.raises(ValueError, match="`significance`"):
        plot_cd_diagram(r, significance=0.1)


def test_invalid_values_from_the_declarations_name_the_parameter():
    # plot_cd_diagram left predstab.compare (whose registry generated its bad values): the same
    # check here, from the declarations of predstab.plotting.plot_cd_diagram
    from predstab._core._validation import InvalidParameterError
    from predstab.plotting import plot_cd_diagram

    r = compare.friedman_nemenyi(4 - RANKS)
    plot_cd_diagram(r)  # the valid call draws
    declared = plot_cd_diagram._parameter_constraints
    assert set(declared) == {"significance", "labels", "colors", "ax", "order", "show_cliques",
                             "clique_color", "title", "decimals"}
    checked = 0
    for param, constraints in declared.items():
        bad_values = [v for c in constraints for v in c.invalid_values()
                      if not any(other.is_satisfied_by(v) for other in constraints)]
        for bad in bad_values:
            with pytest.raises(InvalidParameterError, match=f"`{param}`"):
                plot_cd_diagram(r, **{param: bad})
            checked += 1
    assert checked >= len(declared)


def test_the_diagram_of_a_result_at_another_significance_is_that_results():
    # plot_cd_diagram(r, significance=s) draws r.at_significance(s): CD, title and cliques
    from predstab.plotting import plot_cd_diagram

    r = compare.friedman_nemenyi(4 - RANKS)
    strict = r.at_significance(0.01)
    texts = lambda fig: sorted(t.get_text() for t in fig.axes[0].texts)  # noqa: E731
    assert texts(plot_cd_diagram(r, significance=0.01)) == texts(plot_cd_diagram(strict))
    assert plot_cd_diagram(r, significance=0.01).axes[0].get_title() == \
        "Critical difference (Nemenyi, alpha = 0.01): CD = 1.19"
    # at 1 % no pair differs: one clique of all three methods, one bar
    assert strict.significant == () and strict.cliques() == [("method 2", "method 1", "method 3")]
    bars = [ln for ln in plot_cd_diagram(strict).axes[0].lines if ln.get_linewidth() == 4]
    assert len(bars) == 1
    # only the CD and what depends on it change
    assert (strict.statistic, strict.pvalue) == (r.statistic, r.pvalue)
    np.testing.assert_array_equal(strict.average_ranks, r.average_ranks)
    np.testing.assert_array_equal(strict.nemenyi_pvalues, r.nemenyi_pvalues)
