"""The example notebooks of docs/notebooks run top to bottom and state the right numbers.

Each notebook is executed once by nbclient in a fresh kernel (the dev extra installs nbclient,
nbformat and ipykernel; without them the test skips and says so); the site's test renders
those executed notebooks. No cell may fail, each must finish within a minute, and the numbers
a notebook prints are checked here against their source: the ICC and Fleiss' kappa of the
R-written file against irr's and psych's reference values, the tuning table against optRF's
run on the same SNP data, and the single forecast's phi against its definition computed from
the spreads it states.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "docs" / "notebooks"
REFERENCE = ROOT / "validation" / "r-reference"
NAMES = ("tune-snp-trees", "single-forecast", "agreement-from-r")
NUMBER = r"(-?[\d.]+(?:e-?\d+)?)"


def _execute(name):
    """Run notebook ``name`` in a fresh kernel: (what it printed, its HTML outputs, the executed
    notebook, seconds)."""
    nbformat = pytest.importorskip("nbformat", reason="the notebooks need the dev extra (nbformat)")
    nbclient = pytest.importorskip("nbclient", reason="the notebooks need the dev extra (nbclient)")
    pytest.importorskip("ipykernel", reason="the notebooks need the dev extra (ipykernel)")
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert not any(c.get("outputs") for c in notebook.cells if c.cell_type == "code"), \
        "store notebooks without outputs: the docs build and this test run them"
    start = time.perf_counter()
    with pytest.MonkeyPatch.context() as patch:
        # the kernel imports this checkout's predstab, as the test process does
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                                 os.environ.get("PYTHONPATH")])))
        nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                                resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    seconds = time.perf_counter() - start
    printed, html = [], []
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", (out.ename, out.evalue)
            if out.output_type == "stream":
                printed.append(out.text)
            html.append(out.get("data", {}).get("text/html", ""))
    return "".join(printed), html, notebook, seconds


@pytest.fixture(scope="module")
def executed():
    """Each notebook run once for the module (on first use): its test reads what it printed and
    the site's test renders the executed notebook, instead of running it a second time."""
    runs = {}

    def get(name):
        if name not in runs:
            runs[name] = _execute(name)
        return runs[name]

    return get


def _json(*parts):
    return json.loads(REFERENCE.joinpath(*parts).read_text(encoding="utf-8"))


@pytest.mark.slow
def test_agreement_notebook_states_irr_and_psych_numbers(executed):
    printed, html, notebook, seconds = executed("agreement-from-r")
    irr = _json("classic", "expected", "irr_icc.json")["m_20x3"]
    ours, theirs = map(float, re.search(rf"ICC\(1\) = {NUMBER} \(irr: {NUMBER}\)", printed).groups())
    assert abs(ours - irr[0]["value"]) < 1e-6 and abs(theirs - irr[0]["value"]) < 1e-6
    assert irr[0]["model"] == "oneway" and irr[0]["unit"] == "single"
    gap = float(re.search(rf"over the six forms: {NUMBER}", printed).group(1))
    assert gap < 1e-10
    fleiss = _json("classic", "expected", "irr_kappam_fleiss.json")["c_30x6_4cat"]["value"]
    ours = float(re.search(rf"Fleiss' kappa = {NUMBER}", printed).group(1))
    assert abs(ours - fleiss) < 1e-6
    # the side-by-side table shows psych's six forms as R computed them
    psych = _json("classic", "expected", "psych_ICC.json")["m_20x3"]
    table = next(h for h in html if "psych::ICC" in h)
    for row in psych:
        assert f"{row['ICC']:.6f}".rstrip("0") in table, row["type"]
    # the result displays as HTML (its table), not only as text
    assert any("ICCResult" in h and "irr::icc" in h for h in html)


@pytest.mark.slow
def test_single_forecast_notebook_states_phi_of_its_spreads(executed):
    printed, html, notebook, seconds = executed("single-forecast")
    found = re.search(rf"phi = {NUMBER} \(95% interval {NUMBER} to {NUMBER}\); the refits' predictions "
                      rf"spread by {NUMBER} around {NUMBER}, against a spread of {NUMBER}", printed)
    phi, low, high, spread, _, train = map(float, found.groups())
    assert low <= phi <= high
    # phi of one metric object: 1 - (variance of its refits' predictions / variance of the training y)
    assert phi == pytest.approx(1 - (spread / train) ** 2, abs=2e-3)
    assert sum("data:image/png;base64," in h for h in html) >= 1  # the many-object result's figure


@pytest.mark.slow
def test_tuning_notebook_states_its_recommendation_beside_optrf(executed):
    printed, html, notebook, seconds = executed("tune-snp-trees")
    optrf = _json("optrf", "expected", "optRF_runs.json")["snp_regression"]
    found = re.search(r"Recommended: (\d+) trees \(icc, optRF's rule\); 95% interval (\d+) to (\d+); "
                      r"optRF recommended (\d+)", printed)
    value, low, high, theirs = map(int, found.groups())
    assert low <= value <= high and theirs == optrf["recommendation"]
    assert value % 1000 == 0  # optRF's rule rounds to thousands
    # the side-by-side table: optRF's stability at each grid value beside predstab's expected ICC
    side = next(c for c in notebook.cells if c.cell_type == "code" and "optRF pred_stability" in c.source)
    text = side.outputs[0]["data"]["text/plain"].splitlines()[1:]
    rows = [list(map(float, line.split()[1:])) for line in text]
    assert [int(r[0]) for r in rows] == optrf["grid"]
    for row, theirs in zip(rows, optrf["result_table"], strict=True):
        n, icc, icc_low, icc_high, shown = row
        assert shown == pytest.approx(theirs["pred_stability"], abs=1e-4)
        assert icc_low <= icc <= icc_high
        assert abs(icc - theirs["pred_stability"]) < 0.1, (n, icc, theirs)  # one optRF run is noisy
    assert any("data:image/png;base64," in h and "TuningResult" in h for h in html)


@pytest.mark.slow
def test_site_shows_the_notebooks_with_outputs_and_figures(tmp_path, executed):
    # `mkdocs build --strict` with docs/'s notebooks plugin and only the notebooks in the nav:
    # each page holds its code, what it printed and its figures (embedded PNG). The build renders
    # the notebooks as this module's tests executed them (each runs once); docs/'s configuration
    # executes them in the build, with a failing cell failing it (pinned here)
    pytest.importorskip("mkdocs_jupyter", reason="the site's notebooks need the docs extra (mkdocs-jupyter)")
    import shutil
    import subprocess
    import sys

    import nbformat
    import yaml

    docs = tmp_path / "docs"
    shutil.copytree(NOTEBOOKS, docs / "notebooks")
    for name in NAMES:
        nbformat.write(executed(name)[2], docs / "notebooks" / f"{name}.ipynb")
    (docs / "index.md").write_text("# predstab\n", encoding="utf-8")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    jupyter = next(p for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p)
    assert jupyter["mkdocs-jupyter"]["execute"] is True and jupyter["mkdocs-jupyter"]["allow_errors"] is False
    jupyter = {"mkdocs-jupyter": {**jupyter["mkdocs-jupyter"], "execute": False}}  # executed above
    notebooks = next(item["Notebooks"] for item in config["nav"]
                     if isinstance(item, dict) and "Notebooks" in item)
    assert sorted(next(iter(n.values())) for n in notebooks) == sorted(f"notebooks/{n}.ipynb" for n in NAMES)
    site = {"site_name": "predstab", "theme": config["theme"], "docs_dir": str(docs),
            "site_dir": str(tmp_path / "site"),
            "plugins": [jupyter], "nav": [{"Home": "index.md"}, {"Notebooks": notebooks}]}
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(site), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                           str(tmp_path / "mkdocs.yml")], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    irr = _json("classic", "expected", "irr_icc.json")["m_20x3"][0]["value"]
    expected = {"agreement-from-r": f"ICC(1) = {irr:.6f}", "single-forecast": "phi = ",
                "tune-snp-trees": "optRF recommended 18000"}
    for name, text in expected.items():
        page = (tmp_path / "site" / "notebooks" / name / "index.html").read_text(encoding="utf-8")
        assert text in page, name
        figures = page.count('src="data:image/png;base64,')  # the results' figures, inside the page
        assert figures == (0 if name == "agreement-from-r" else 1), (name, figures)
        assert "reproduces irr::icc" in page or name != "agreement-from-r"  # the result's HTML table
        assert "<script src=\"http" not in page
        assert 'class="ansi-red-fg"' not in page and "Traceback" not in page  # no cell failed
