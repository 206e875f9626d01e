"""Every code block of README.md and docs/ runs (issue 13, item 20), and the site's generated
parts are right (issue 22).

The blocks run through docs/_blocks.py, the runner the docs build uses to show each tutorial
block's output: each page's fenced blocks in order in a fresh folder, the Python blocks sharing
one namespace (as a reader types them into one session), the shell blocks' ``predstab``
commands through :func:`predstab.cli.main` with exit code 0 required. Blocks that cannot run
are listed there, each with its reason; a block of any other kind (a new language, a shell
command not listed) fails the test, so nothing is skipped silently. A block is also left out
when the line before its fence is ``<!-- docs-test: skip REASON -->``.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PAGES = [page for page in PAGES if "```" in page.read_text(encoding="utf-8")]


def _load(name):
    """A module of docs/ (not a package): the block runner or the mkdocs hooks."""
    path = ROOT / "docs" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"predstab_docs_{name.strip('_')}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


# the runner the docs build uses too (docs/_blocks.py): one engine for running the pages
runner = _load("_blocks")

# pages whose blocks a dedicated test runs (with checks of the figures the text quotes)
RUN_ELSEWHERE = {"docs/tutorials/did-b-beat-a.md": "tests/compare/test_tutorial.py",
                 "README.md": "tests/docs/test_readme.py"}


def blocks(page):
    """``(language, code, line, skip reason or None)`` of every fenced block of ``page``."""
    return [(b.lang, b.code, b.line, b.skip) for b in runner.blocks(page.read_text(encoding="utf-8"))]


commands = runner.commands


def _page_id(page):
    return page.relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------- the tests
def _page_param(page):
    # the tutorials fit models for seconds each: slow (CI runs them; `-m "not slow"` does not)
    marks = pytest.mark.slow if _page_id(page).startswith("docs/tutorials/") else ()
    return pytest.param(page, marks=marks, id=_page_id(page))


@pytest.mark.parametrize("page", [_page_param(p) for p in PAGES if _page_id(p) not in RUN_ELSEWHERE])
def test_every_code_block_runs(page, tmp_path):
    name = _page_id(page)
    runs = runner.run_page(page.read_text(encoding="utf-8"), name, tmp_path)
    assert runs, f"{name}: no block found"
    # the tutorials show what each block printed: a table pandas cut to "..." shows the reader nothing
    truncated = [f"{name}:{r.block.line}" for r in runs
                 if re.search(r"\[\d+ rows x \d+ columns\]|\s\.\.\.\s", r.stdout)]
    assert truncated == [], f"print a few columns (or .to_string()) instead of a truncated frame: {truncated}"


def test_pages_run_elsewhere_are_run_there():
    for page, test in RUN_ELSEWHERE.items():
        source = (ROOT / test).read_text(encoding="utf-8")
        assert Path(page).name in source, f"{test} does not run {page}"


def test_the_collector_finds_indented_blocks_and_skip_markers(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("text\n\n- item:\n\n  ```python\n  x = 1\n  ```\n\n"
                    "<!-- docs-test: skip needs a GPU -->\n```python\nimport torch\n```\n")
    assert blocks(page) == [("python", "x = 1\n", 5, None), ("python", "import torch\n", 10, "needs a GPU")]
    assert commands("predstab a \\\n  --b 1   # c\n# only a comment\n") == ["predstab a    --b 1   # c"]


def test_readme_lists_every_command():
    from predstab.cli import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if line.startswith("| command line"))
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    listed = set(re.findall(r"\b([a-z]+)\b", row.split("`predstab")[1].split("`")[0]))
    assert listed == set(sub.choices)


def test_site_loads_no_script_from_the_internet():
    # item 21: formulas render offline, so every script of the site ships with it
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    section = config.split("extra_javascript:")[1]
    scripts = re.findall(r"^  - (\S+)\s*$", section.split("\n\n")[0], flags=re.M)
    assert any("mathjax" in s.lower() for s in scripts), "no MathJax: formulas would show as raw TeX"
    for path in scripts:
        assert not path.startswith(("http://", "https://", "//")), f"{path} needs the internet"
        assert (ROOT / "docs" / path).is_file(), f"docs/{path} is missing"
    assert "://" not in (ROOT / "docs" / "javascripts" / "mathjax-config.js").read_text(encoding="utf-8")


def test_license_file_is_mit():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "predstab developers" in text


def test_license_goes_into_the_wheel(monkeypatch):
    # what setuptools copies into the wheel's .dist-info/licenses/ (checked by hand too:
    # `pip wheel . --no-deps` gives predstab-0.1.0.dist-info/licenses/LICENSE)
    from setuptools.dist import Distribution

    try:
        from setuptools.config.pyprojecttoml import apply_configuration
    except ImportError:
        pytest.skip("this setuptools cannot read pyproject.toml; to check by hand: pip wheel . --no-deps, "
                    "then look for .dist-info/licenses/LICENSE in the wheel")
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dist = apply_configuration(Distribution(), ROOT / "pyproject.toml")
        finalize = getattr(dist, "_finalize_license_files", None)
        if finalize is None:
            pytest.skip("this setuptools finds license files only while building; to check by hand: "
                        "pip wheel . --no-deps, then look for .dist-info/licenses/LICENSE in the wheel")
        finalize()
    assert "LICENSE" in dist.metadata.license_files


# --------------------------------------------------------------------------- the site's generated parts
def _hooks():
    return _load("_hooks")


def _mkdocs_config():
    import yaml

    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_docstring_pieces_reach_the_site_filled_in():
    # griffe reads the source, where fill_doc's pieces are still %(name)s lines: the extension takes
    # the run-time docstring of such an object
    hooks = _hooks()
    doc = hooks.runtime_docstring("predstab.agreement._cac.gwet_ac1")
    assert "%(" not in doc and "counts : bool, default False" in doc and doc.startswith("Gwet's AC1")
    assert hooks.runtime_docstring("predstab.agreement._cac.no_such_name") is None

    class Doc:
        value = "Title.\n\nParameters\n----------\n%(cac_sections)s\n"

    class Obj:
        path = "predstab.agreement._cac.gwet_ac1"
        docstring = Doc()

    hooks.NumpydocMath().on_instance(obj=Obj())
    assert "%(" not in Obj.docstring.value and "Brennan-Prediger" in Obj.docstring.value


def test_docstring_math_reaches_the_site_as_arithmatex():
    # issue 22, item 21: the reference showed 285 :math: roles and .. math:: blocks as raw text.
    # Load the package with the griffe extensions mkdocs.yml gives mkdocstrings, as the build does.
    import griffe
    import markdown

    options = _mkdocs_config()["plugins"][1]["mkdocstrings"]["handlers"]["python"]["options"]
    extensions = griffe.load_extensions(*[str(ROOT / e) for e in options.get("extensions", [])])
    package = griffe.load("predstab", search_paths=[str(ROOT / "src")], extensions=extensions,
                          docstring_parser="numpy")
    docstrings, seen = [], set()

    def walk(obj):
        if obj.path in seen or obj.is_alias:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            docstrings.append((obj.path, obj.docstring.value))
        for member in obj.members.values():
            walk(member)

    walk(package)
    raw = [path for path, text in docstrings if ":math:`" in text or ".. math::" in text]
    assert raw == [], f"reST math left in {raw[:5]}"
    # the formula of TreePool's docstring, through the site's Markdown: a block MathJax typesets
    pool = dict(docstrings)["predstab.ensembles._pool.TreePool"]
    html = markdown.markdown(pool, extensions=["pymdownx.arithmatex"],
                             extension_configs={"pymdownx.arithmatex": {"generic": True}})
    assert '<div class="arithmatex">\\[\nW = \\frac{1}{N}\\sum_i \\sigma_i^2, \\qquad' in html
    assert '<span class="arithmatex">\\(\\sigma_i^2 / n\\)</span>' in html
    assert ":math:" not in html


def test_rest_citations_become_one_list_item_each():
    # the API reference showed ".. [1] Shrout ... .. [2] McGraw ..." as one paragraph
    import predstab

    convert = _hooks().rest_citations_to_markdown
    text = ("References\n----------\n.. [1] Shrout, P. E. & Fleiss, J. L. (1979). Intraclass\n"
            "   correlations. https://doi.org/10.1037/0033-2909.86.2.420\n.. [2] McGraw, K. O. (1996).\n\n"
            "See .. [3] in running text.")
    assert convert(text) == ("References\n----------\n- \\[1\\] Shrout, P. E. & Fleiss, J. L. (1979). "
                             "Intraclass\n   correlations. https://doi.org/10.1037/0033-2909.86.2.420\n"
                             "- \\[2\\] McGraw, K. O. (1996).\n\nSee .. [3] in running text.")
    # every reST citation of the public docstrings is converted: none is left for Markdown
    for name in predstab.__all__:
        doc = getattr(getattr(predstab, name), "__doc__", None) or ""
        assert ".. [" not in convert(inspect.cleandoc(doc)), name


def test_rest_math_conversion_keeps_text_and_indentation():
    convert = _hooks().rest_math_to_arithmatex
    text = ("Value :math:`s(n)` and a role that\nwraps :math:`a +\nb`.\n\n    .. math::\n\n"
            "        x = 1,\n\n        y = 2\n\n    After.\n.. math:: z = 3\nEnd")
    assert convert(text) == ("Value \\(s(n)\\) and a role that\nwraps \\(a +\nb\\).\n\n\n    $$\n"
                             "    x = 1,\n    $$\n\n\n    $$\n    y = 2\n    $$\n\n    After.\n\n"
                             "$$\nz = 3\n$$\n\nEnd")


def test_api_reference_sections_are_named_by_what_they_hold():
    # item 21: two sections were headed by private module names (_cohen, _irr)
    hooks = _hooks()
    hooks._importable()
    headings = re.findall(r"^## (.+)$", hooks._api_reference(), flags=re.M)
    assert ("Agreement: Cohen's and Light's kappa (irr::kappa2, psych::cohen.kappa, irr::kappam.light)"
            in headings)
    assert not [h for h in headings if re.search(r"(^|[\s.`])_\w", h)], headings
    import predstab

    assert set(predstab._EXPORTS.values()) <= set(hooks._SECTIONS), "a module without a section heading"


def test_nav_lists_each_page_once_in_plain_text():
    # item 21: the nav showed literal backticks and listed the coverage page twice
    hooks = _hooks()
    nav = hooks.on_config({"nav": _mkdocs_config()["nav"], "docs_dir": str(ROOT / "docs")})["nav"]
    pages = list(hooks._listed_pages(nav))
    assert len(pages) == len(set(pages)), sorted(p for p in pages if pages.count(p) > 1)
    assert {"benchmarks/coverage.md", "benchmarks/stability.md"} <= set(pages)

    def titles(items):
        for item in items:
            if isinstance(item, dict):
                (title, value), = item.items()
                yield title
                if isinstance(value, list):
                    yield from titles(value)

    assert "Speed of predstab.phi / predstab.psi" in set(titles(nav))
    assert not [t for t in titles(nav) if "`" in t]


def test_ranger_min_node_size_maps_the_same_in_the_docs_and_tune_help():
    # issue 22, item 24: r-to-python.md said min_samples_split=5, `tune --help` --min-samples-leaf 5.
    # ranger stops splitting a node of min.node.size or fewer samples (`if (size <= min_node_size)`
    # in its Tree*::splitNodeInternal); scikit-learn splits a node of min_samples_split or more.
    from predstab.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    texts = {"predstab tune --help": sub.choices["tune"].format_help(),
             "docs/r-to-python.md": (ROOT / "docs" / "r-to-python.md").read_text(encoding="utf-8"),
             "docs/cli.md": (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")}
    for where, text in texts.items():
        flat = " ".join(text.replace("`", "").split())
        assert "min_samples_split = min.node.size + 1" in flat, where
        assert not re.search(r"leaf \(min\.node\.size\)|min_samples_split=5\b", flat), where
    # and the tutorial's forest follows the rule for ranger's regression default (5)
    tutorial = (ROOT / "docs" / "tutorials" / "tune-tree-count.md").read_text(encoding="utf-8")
    assert 'RandomForestRegressor(max_features="sqrt", min_samples_split=6)' in tutorial


def test_estimator_line_lists_every_option_passed():
    # item 24: "Estimator:" showed six fixed parameters, not e.g. the min_samples_split passed
    from sklearn.ensemble import RandomForestRegressor

    import predstab

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + rng.normal(scale=0.5, size=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = predstab.tune_num_learners(
            RandomForestRegressor(max_features="sqrt", min_samples_split=6, max_leaf_nodes=12, n_jobs=1),
            X[:30], y[:30], X[30:], grid=(2, 4, 8), n_repeats=2, measures=("phi",), pool_size=16,
            n_resamples=0, random_state=0)
    line = next(s for s in str(result).splitlines() if s.startswith(" Estimator: "))
    assert line == (" Estimator: RandomForestRegressor(max_features='sqrt', min_samples_leaf=1, "
                    "max_samples=None, bootstrap=True, max_depth=None, criterion='squared_error', "
                    "max_leaf_nodes=12, min_samples_split=6)")


# --------------------------------------------------------------------------- tutorials' output (item 22)
def test_tutorial_blocks_are_followed_by_what_they_printed_and_drew(tmp_path):
    # issue 22, item 22: the tutorials showed code but no output. The build runs each block with
    # the runner above and puts its output and figures after it (docs/_hooks.py: with_outputs).
    hooks = _hooks()
    page = ("# T\n\n```python\nimport numpy as np\nvalues = np.array([0.5, 0.75, 1.0])\n"
            "print(values.mean())\n```\n\nText.\n\n- in a list:\n\n  ```python\n"
            "  from predstab.plotting import plot_per_object\n"
            "  plot_per_object(values).savefig('a.png')\n  fig = plot_per_object(values, kind='hist')\n"
            "  ```\n\n```text\nnot run\n```\n\n```bash\npredstab --version\n```\n")
    runs = runner.run_page(page, "docs/tutorials/t.md", tmp_path, figures=True)
    assert [r.ran for r in runs] == [True, True, False, True]
    assert runs[0].stdout == "0.75\n" and runs[0].figures == []
    # the second block saved one figure (its file, not also the unsaved one it kept)
    assert runs[1].stdout == "" and len(runs[1].figures) == 1
    assert runs[1].figures[0] == (tmp_path / "a.png").read_bytes()
    from predstab import __version__

    assert __version__ in runs[3].stdout
    shown = hooks.with_outputs(page, runs, "tutorials/t.md")
    label = "*Output (generated when this page was built):*"
    assert shown.count(label) == 3
    assert f"print(values.mean())\n```\n\n{label}\n\n```text\n0.75\n```\n\nText." in shown
    assert (f"  fig = plot_per_object(values, kind='hist')\n  ```\n\n  {label}\n\n"
            "  ![Figure 1 of this page, drawn by the code above](_output/t-1.png)\n") in shown
    assert "```text\nnot run\n```\n\n```bash" in shown  # a block that is not run gets nothing
    # a figure kept in a variable, not saved, is captured too
    again = runner.run_page("```python\nfrom predstab.plotting import plot_per_object\n"
                            "fig = plot_per_object([0.2, 0.9])\n```\n", "docs/tutorials/u.md", tmp_path,
                            figures=True)
    assert len(again[0].figures) == 1 and again[0].figures[0][:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_built_site_shows_math_outputs_and_figures(tmp_path):
    # the site as a reader gets it (issue 22, items 21 and 22): `mkdocs build --strict` with
    # docs/'s configuration and hooks, of the reference and one tutorial (the nav drops the rest)
    import shutil
    import subprocess

    import yaml

    docs = tmp_path / "docs"
    for part in ("_hooks.py", "_blocks.py", "javascripts", "reference/api.md",
                 "tutorials/single-forecast.md", "r-to-python.md", "cli.md"):
        (docs / part).parent.mkdir(parents=True, exist_ok=True)
        copy = shutil.copytree if (ROOT / "docs" / part).is_dir() else shutil.copy
        copy(ROOT / "docs" / part, docs / part)
    (docs / "index.md").write_text("# predstab\n", encoding="utf-8")
    config = _mkdocs_config()
    # no notebook is copied: the notebooks' plugin is not needed (tests/docs/test_notebooks.py builds them)
    config["plugins"] = [p for p in config["plugins"] if not (isinstance(p, dict) and "mkdocs-jupyter" in p)]
    config["docs_dir"] = str(docs)
    config["site_dir"] = str(tmp_path / "site")
    config["hooks"] = [str(docs / "_hooks.py")]
    handler = config["plugins"][1]["mkdocstrings"]["handlers"]["python"]
    handler["paths"] = [str(ROOT / "src")]
    handler["options"]["extensions"] = [str(docs / "_hooks.py") + ":NumpydocMath"]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f",
                           str(tmp_path / "mkdocs.yml")], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    site = tmp_path / "site"
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert ":math:" not in api and ".. math::" not in api
    # issue 35, item 10: no reST role, table row or escaped pipe shown as text on any page (the
    # build itself fails on them: docs/_hooks.py's on_post_page); the roles are links
    for page in site.rglob("*.html"):
        assert _hooks().raw_markup(page.read_text(encoding="utf-8")) == [], page
    assert api.count('class="autorefs autorefs-internal"') >= 200
    assert ('The values equal <a class="autorefs autorefs-internal" '
            'title="icc (predstab.agreement._icc.icc)" '
            'href="#predstab.agreement._icc.icc"><code>icc()</code></a>') in api
    r_to_python = (site / "r-to-python" / "index.html").read_text(encoding="utf-8")
    assert "<td>APS's data sets" in r_to_python
    assert 'baseline="oob"|"kfold", random_state=...)</code>' in r_to_python
    assert "<code>predstab power seeds|power|effect|games</code>" in (site / "cli" / "index.html").read_text()
    assert api.count('<div class="arithmatex">') >= 30 and api.count('<span class="arithmatex">') >= 200
    page = (site / "tutorials" / "single-forecast" / "index.html").read_text(encoding="utf-8")
    # after each block that prints or draws: its first three Python blocks and the shell command
    assert page.count("Output (generated when this page was built):") == 4
    assert "Data-based prediction stability (phi)" in page  # print(result) of the first block
    assert "observed_instability" in page  # per_object_frame() of the second
    images = re.findall(r'<img alt="Figure \d+ of this page[^"]*" src="([^"]+)"', page)
    assert images == ["../_output/single-forecast-1.png"]
    png = (site / "tutorials" / "_output" / "single-forecast-1.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[16:24] == (960).to_bytes(4, "big") + (600).to_bytes(4, "big")


# --------------------------------------------------------------------------- issue 35, item 10
def test_rest_roles_become_links_and_raw_markup_is_found():
    hooks = _hooks()
    text = hooks.rest_roles_to_links(
        "equal :func:`icc`'s; :class:`~predstab.TreePool`; :meth:`TreePool.closed_form <predstab.TreePool."
        "closed_form>`; :meth:`closed_form`; :attr:`StabilityResult.per_object`; "
        ":func:`scipy.stats.bootstrap`",
        "predstab.ensembles._pool.TreePool.fit")
    assert text == (
        'equal <autoref identifier="predstab.agreement._icc.icc" optional><code>icc()</code></autoref>\'s; '
        '<autoref identifier="predstab.ensembles._pool.TreePool" optional><code>TreePool</code></autoref>; '
        '<autoref identifier="predstab.ensembles._pool.TreePool.closed_form" optional>'
        '<code>TreePool.closed_form</code></autoref>; '
        '<autoref identifier="predstab.ensembles._pool.TreePool.closed_form" optional>'
        '<code>closed_form()</code></autoref>; '
        '<autoref identifier="predstab.stability._result.StabilityResult.per_object" optional>'
        '<code>StabilityResult.per_object</code></autoref>; '
        '<autoref identifier="scipy.stats._resampling.bootstrap" optional>'
        '<code>scipy.stats.bootstrap()</code></autoref>')
    assert hooks.code_span_pipes("| `a\\|b` | x \\| y |\n`c\\|d`\n```\n| `e\\|f` |\n```") == (
        "| `a|b` | x \\| y |\n`c\\|d`\n```\n| `e\\|f` |\n```")  # table rows only, not in fences
    found = hooks.raw_markup("<p>see :func:<code>icc</code></p><p>| a | b | c |</p><code>p\\|q</code>"
                             "<p>a | b</p><code>x|y</code>")
    assert [kind for kind, _ in found] == ["raw role", "table row as text", "escaped pipe"]
