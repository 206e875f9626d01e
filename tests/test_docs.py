"""Every code block of README.md and docs/ runs (issue 13, item 20).

A small collector of our own: each page's fenced blocks run in order in a fresh folder, the
Python blocks sharing one namespace (as a reader types them into one session), the shell
blocks' ``predstab`` commands through :func:`predstab.cli.main` with exit code 0 required.
Blocks that cannot run here are listed below, each with its reason; a block of any other kind
(a new language, a shell command not listed) fails the test, so nothing is skipped silently.
A block is also left out when the line before its fence is ``<!-- docs-test: skip REASON -->``.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PAGES = [page for page in PAGES if "```" in page.read_text(encoding="utf-8")]

# languages that are not run, and why
NOT_RUN_LANGUAGES = {
    "r": "R code shows the R side of a comparison; R is not installed where the tests run",
    "text": "output, not code",
}
# shell commands that are not run here, and why (matched at the start of the command)
NOT_RUN_COMMANDS = {
    "python3 -m venv": "README's set-up commands: .ci/run runs them verbatim on a fresh machine",
    ". .venv/bin/activate": "README's set-up commands: .ci/run runs them verbatim on a fresh machine",
    "python -m validation": "tests/test_validation.py runs every validation suite",
    "python benchmarks/": "a benchmark takes minutes; its results are on the page",
}
# pages whose blocks a dedicated test runs (with checks of the figures the text quotes)
RUN_ELSEWHERE = {"docs/tutorials/did-b-beat-a.md": "tests/test_compare_tutorial.py",
                 "README.md": "tests/test_readme.py"}

_FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ ]*$",
                    flags=re.M | re.S)
_SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s+(?P<reason>.+?)\s*-->\s*$")


def blocks(page):
    """``(language, code, line, skip reason or None)`` of every fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    out = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = _SKIP.search(before)
        code = textwrap.dedent(match.group("body"))
        out.append((match.group("lang").lower(), code, line, skip and skip.group("reason")))
    return out


def commands(code):
    """The shell commands of a block: continuation lines joined, comments dropped."""
    joined = code.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def _page_id(page):
    return page.relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------- input files
def _files_for_cli_pages(folder):
    """The files the shell examples of cli.md name, small and made up (seeded)."""
    rng = np.random.default_rng(13)
    truth = rng.normal(size=40)
    pd.DataFrame(truth[:, None] + rng.normal(scale=0.3, size=(40, 10)),
                 columns=[f"V{j + 1}" for j in range(10)]).to_csv(folder / "pred.csv", index=False)
    pd.DataFrame({"y": rng.normal(size=120)}).to_csv(folder / "y_train.csv", index=False)
    y = rng.choice(["a", "b", "c"], size=150)
    pd.DataFrame({"y": y, "old": np.where(rng.random(150) < 0.7, y, "a"),
                  "new": np.where(rng.random(150) < 0.8, y, "b")}).to_csv(folder / "preds.csv", index=False)
    a = rng.normal(0.80, 0.02, size=100)
    pd.DataFrame({"A": a, "B": a + rng.normal(0.01, 0.01, size=100)}).to_csv(folder / "cv.csv", index=False)
    s = rng.normal(0.8, 0.05, size=15)
    pd.DataFrame({"A": s, "B": s + rng.normal(0.02, 0.02, size=15)}).to_csv(folder / "scores.csv",
                                                                          index=False)


def _files_for_tuning_page(folder):
    from sklearn.datasets import load_diabetes

    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "yield"})
    frame.iloc[:120, [0, 2, 3, 8, 10]].to_csv(folder / "train.csv", index=False)
    frame.iloc[120:160, [0, 2, 3, 8, 10]].to_csv(folder / "test.csv", index=False)


INPUT_FILES = {"docs/cli.md": _files_for_cli_pages,
               "docs/tutorials/tune-tree-count.md": _files_for_tuning_page}


# --------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("page", [p for p in PAGES if _page_id(p) not in RUN_ELSEWHERE], ids=_page_id)
def test_every_code_block_runs(page, tmp_path, monkeypatch, capsys):
    from predstab.cli import main

    name = _page_id(page)
    found = blocks(page)
    monkeypatch.chdir(tmp_path)
    if name in INPUT_FILES:
        INPUT_FILES[name](tmp_path)
    namespace = {"__name__": "__docs__"}
    start = time.perf_counter()
    try:
        for lang, code, line, skip in found:
            where = f"{name}:{line}"
            if skip or lang in NOT_RUN_LANGUAGES:
                continue
            if lang == "python":
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # warnings are the pages' to show, not errors here
                    exec(compile(code, where, "exec"), namespace)  # noqa: S102
            elif lang in ("bash", "sh", "shell"):
                for command in commands(code):
                    if any(command.startswith(prefix) for prefix in NOT_RUN_COMMANDS):
                        continue
                    argv = shlex.split(command, comments=True)
                    assert argv[0] == "predstab", (
                        f"{where}: `{command}` is neither a predstab command nor listed in NOT_RUN_COMMANDS")
                    stderr = io.StringIO()
                    with contextlib.redirect_stderr(stderr):
                        code_ = main(argv[1:])
                    assert code_ == 0, f"{where}: `{command}` exited {code_}: {stderr.getvalue()}"
            else:
                pytest.fail(f"{where}: a ```{lang} block: run it here or list the language in "
                            "NOT_RUN_LANGUAGES with a reason")
    finally:
        import matplotlib.pyplot as plt

        plt.close("all")
    elapsed = time.perf_counter() - start
    assert elapsed < 60, f"{name}'s examples took {elapsed:.0f} s: keep them fast (small data, small grids)"


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
    import importlib.util

    spec = importlib.util.spec_from_file_location("predstab_docs_hooks", ROOT / "docs" / "_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mkdocs_config():
    import yaml

    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


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
    pool = dict(docstrings)["predstab._pool.TreePool"]
    html = markdown.markdown(pool, extensions=["pymdownx.arithmatex"],
                             extension_configs={"pymdownx.arithmatex": {"generic": True}})
    assert '<div class="arithmatex">\\[\nW = \\frac{1}{N}\\sum_i \\sigma_i^2, \\qquad' in html
    assert '<span class="arithmatex">\\(\\sigma_i^2 / n\\)</span>' in html
    assert ":math:" not in html


def test_rest_math_conversion_keeps_text_and_indentation():
    convert = _hooks().rest_math_to_arithmatex
    text = ("Value :math:`s(n)` and a role that\nwraps :math:`a +\nb`.\n\n    .. math::\n\n"
            "        x = 1,\n\n        y = 2\n\n    After.\n.. math:: z = 3\nEnd")
    assert convert(text) == ("Value \\(s(n)\\) and a role that\nwraps \\(a +\nb\\).\n\n\n    $$\n"
                             "    x = 1,\n    y = 2\n    $$\n\n    After.\n\n$$\nz = 3\n$$\n\nEnd")


def test_api_reference_sections_are_named_by_what_they_hold():
    # item 21: two sections were headed by private module names (_cohen, _irr)
    hooks = _hooks()
    hooks._importable()
    headings = re.findall(r"^## (.+)$", hooks._api_reference(), flags=re.M)
    assert ("Agreement: Cohen's and Light's kappa (irr::kappa2, irr::kappam.light, irr::N.cohen.kappa)"
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
            n_bootstrap=0, random_state=0)
    line = next(s for s in str(result).splitlines() if s.startswith(" Estimator: "))
    assert line == (" Estimator: RandomForestRegressor(max_features='sqrt', min_samples_leaf=1, "
                    "max_samples=None, bootstrap=True, max_depth=None, criterion='squared_error', "
                    "max_leaf_nodes=12, min_samples_split=6)")
