"""Every result renders as HTML (Jupyter's ``_repr_html_``): read with a real HTML parser.

The renderer (:mod:`predstab._core._html`) reads a result's fields; these tests parse what it
writes with :mod:`html.parser` and check, for every registered example result and the tree
pool: the tags nest and close (tables well formed), no script runs and nothing outside the
page is referenced, the caption names the class and the R function, and the estimate row
holds the result's own numbers with its interval in the next two columns. A label holding
``<script>`` shows as text. Results over 10^5 objects stay small (a summary and a figure).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import predstab
from predstab._core._html import R_FUNCTIONS, render
from predstab._core._results import r_signif
from tests._htmlcheck import _check_page, parse
from tests._registry import RESULTS

IDS = [label for label, _, _ in RESULTS]
EVIL = "<script>alert('x')</script>"


@pytest.fixture(scope="module")
def examples():
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, _, factory in RESULTS:
            out[label] = factory()
    return out


@pytest.mark.parametrize("label", IDS)
def test_every_result_renders_well_formed_html_with_its_own_numbers(label, examples):
    res = examples[label]
    text = res._repr_html_()
    tree = _check_page(text)
    name = type(res).__name__
    assert name in R_FUNCTIONS, f"name the R function {name} reproduces in R_FUNCTIONS"
    caption = "".join(tree.text)
    assert name in caption and "reproduces" in caption
    main = tree.tables[0]
    rows = {row[0]: row for row in main[1:]}
    # the estimate row: the result's number as R prints it, and its interval beside it
    value = getattr(res, "value", None)
    if isinstance(value, float) and "value" in rows:
        assert rows["value"][1] == r_signif(value)
        ci = getattr(res, "confidence_interval", None)
        if ci is not None and np.ndim(ci.low) == 0 and len(main[0]) == 4:
            assert rows["value"][2:] == [r_signif(ci.low), r_signif(ci.high)]
            assert main[0][2].endswith("lower") and main[0][3].endswith("upper")
    # the R-style block is there verbatim (the text display is unchanged)
    assert str(res) in "".join(tree.text)


def test_the_interval_of_a_named_estimate_sits_in_its_row(examples):
    res = examples["CohenKappaResult(weighted)"]
    rows = {row[0]: row for row in parse(render(res, figure=False)).tables[0]}
    low, high = res.unweighted_confidence_interval
    assert rows["unweighted_kappa"][1:] == [r_signif(res.unweighted_kappa), r_signif(low), r_signif(high)]
    boot = examples["PairedBootstrapResult"]
    rows = {row[0]: row for row in parse(render(boot, figure=False)).tables[0]}
    assert rows["score_a"][2:] == [r_signif(boot.ci_a.low), r_signif(boot.ci_a.high)]
    assert rows["difference"][2:] == [r_signif(v) for v in boot.confidence_interval]


def test_array_intervals_are_columns_beside_their_curve(examples):
    res = examples["ClosedFormResult"]
    tree = parse(render(res, figure=False))
    table = next(t for t in tree.tables if t[0][:2] == ["n_learners", "curve"])
    assert [row[0] for row in table[1:]] == [r_signif(n) for n in res.n_learners]
    assert [row[2] for row in table[1:]] == [r_signif(v) for v in res.confidence_interval.low]
    assert [row[3] for row in table[1:]] == [r_signif(v) for v in res.confidence_interval.high]


def test_a_script_in_a_category_name_is_text():
    labels = np.array([[EVIL, "b", "b"], ["b", "b", EVIL], [EVIL, EVIL, EVIL], ["b", "b", "b"]], dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [predstab.fleiss_kappa(labels, detail=True), predstab.psi(labels, [EVIL, "b", "b"]),
                   predstab.cohen_kappa(labels[:, :2])]
    for res in results:
        text = res._repr_html_()
        tree = _check_page(text)
        assert EVIL not in text  # escaped in the source...
        assert any(EVIL in t for t in tree.text)  # ...and read back as text


def test_a_frame_shows_its_head_and_tail_and_escapes_its_labels():
    from predstab._core._html import frame_html

    frame = pd.DataFrame({EVIL: np.arange(100.0)}, index=[f"o{i}" for i in range(100)])
    tree = parse(frame_html(frame, caption="t"))
    rows = tree.tables[0]
    assert rows[0] == ["", EVIL]
    shown = [f"o{i}" for i in range(15)] + ["..."] + [f"o{i}" for i in range(95, 100)]
    assert [r[0] for r in rows[1:]] == shown
    assert "100 rows" in "".join(tree.text)


def test_tree_pool_renders_its_settings_and_no_matrix():
    rng = np.random.default_rng(1)
    pool = predstab.TreePool.from_predictions(rng.normal(size=(200, 30)), random_state=0)
    tree = _check_page(pool._repr_html_())
    text = "".join(tree.text)
    assert "TreePool" in text and "reproduces" in text
    assert "200 x 30" in text  # the matrix as its shape and a summary, not 6000 cells
    assert sum(len(t) for t in tree.tables) < 60


@pytest.mark.slow
def test_a_result_over_1e5_objects_is_a_bounded_summary_with_its_figure():
    rng = np.random.default_rng(0)
    res = predstab.phi(rng.normal(size=(100_000, 10)), rng.normal(size=500))
    text = res._repr_html_()
    tree = _check_page(text)
    assert len(text) < 300_000, len(text)
    assert sum(len(t) for t in tree.tables) < 80  # a summary, not 10^5 rows
    assert sum(v.startswith("data:image/png;base64,") for k, v in tree.attrs if k == "src") == 1
    assert "100000" in "".join(tree.text)  # the per-object arrays' shape, summarised
