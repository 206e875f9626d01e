"""README.md: its Python examples run as written and print what the text says; its set-up
block holds the two commands .ci/run runs verbatim."""

import re
import warnings
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_examples_run(capsys, tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 2, "README.md has fewer python examples than it shows"
    monkeypatch.chdir(tmp_path)
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, code in enumerate(blocks):
            exec(compile(code, f"README.md (python block {k + 1})", "exec"), namespace)
    out = capsys.readouterr().out
    assert "Data-based prediction stability (phi)" in out
    assert "Model-based prediction stability (psi)" in out
    assert "\n \n" not in out  # print(a, b) put a line of one space between APS's blocks
    assert re.search(r"stability +ci_low +ci_high +observed_instability", out)  # per_object_frame()


def test_readme_setup_block_holds_the_two_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- setup:start -->\s*```bash\n(.*?)```\s*<!-- setup:end -->", text, flags=re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2  # what .ci/run expects
    assert commands[0].endswith("pip install -e . && predstab demo")
    # the whole suite (no test selected out), on every core with pytest-xdist (the dev extra)
    assert commands[1].endswith("python -m pytest -n auto --dist loadgroup")


# --- issue 35, items 1 and 2: the README's test command installs what the tests need; one version

ROOT = README.parent
# import name -> the distribution that provides it (as a dependency of an extra's requirement)
_PROVIDED_BY = {"pytest": "pytest", "hypothesis": "hypothesis", "setuptools": "setuptools",
                "dask": "dask", "distributed": "dask", "psutil": "dask",
                "yaml": "mkdocs-material", "markdown": "mkdocs-material",
                "mkdocs": "mkdocs-material", "griffe": "mkdocstrings", "nbformat": "nbformat"}
# (PIL: Pillow, which matplotlib requires; threadpoolctl, which scikit-learn requires)
_BASE = {"numpy", "scipy", "sklearn", "pandas", "matplotlib", "PIL", "threadpoolctl", "joblib", "statsmodels",
         "predstab", "tests", "validation", "benchmarks"}


def _setup_commands():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- setup:start -->\s*```bash\n(.*?)```", text, flags=re.S)
    return [line for line in block.group(1).splitlines() if line.strip()]


def _imports(code):
    """Top-level module names of the import statements of ``code`` (importorskip excepted)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_readme_test_command_installs_every_module_the_tests_import():
    import sys

    import tomllib

    from tests.docs.test_docs import blocks

    extras = re.search(r'pip install -e "\.\[([\w,-]+)\]"', _setup_commands()[1]).group(1).split(",")
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    installed = {re.split(r"[\[<>=~ ]", req)[0].lower() for extra in extras for req in optional[extra]}
    imported = {}
    for path in [*(ROOT / "tests").rglob("*.py"), *(ROOT / "validation").glob("*.py"),
                 *(ROOT / "validation" / "suites").glob("*.py"), ROOT / "docs" / "_hooks.py",
                 ROOT / "docs" / "_blocks.py"]:
        for name in _imports(path.read_text(encoding="utf-8")):
            imported.setdefault(name, path.relative_to(ROOT).as_posix())
    for page in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        for lang, code, line, skip in blocks(page):
            if lang == "python" and skip is None:
                for name in _imports(code):
                    imported.setdefault(name, f"{page.relative_to(ROOT).as_posix()}:{line}")
    third_party = {n: where for n, where in imported.items()
                   if n not in sys.stdlib_module_names and n not in _BASE and not n.startswith("_")}
    unknown = {n: w for n, w in third_party.items() if n not in _PROVIDED_BY}
    assert not unknown, f"imports with no known provider (add to _PROVIDED_BY and an extra): {unknown}"
    missing = {n: w for n, w in third_party.items() if _PROVIDED_BY[n] not in installed}
    assert not missing, (f"README's test command installs .[{','.join(extras)}], which does not bring "
                         f"these imports of the tests: {missing}")


def test_ci_runs_the_readme_commands_before_installing_anything_else():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.split("#")[0].strip() for line in script.splitlines()]
    first, second = (next(k for k, line in enumerate(lines) if line.startswith(f'run "${{cmds[{i}]}}"'))
                     for i in (0, 1))
    installs = [k for k, line in enumerate(lines) if re.search(r"pip\W* install", line)]
    assert first < second < min(installs)
    # then the extra checks: ruff, the strict docs build, the sdist and wheel, the wheel's demo
    steps = [next(k for k, line in enumerate(lines) if line.startswith(step))
             for step in ("ruff check", "mkdocs build --strict", "python -m build", "twine check",
                          "python3 -m venv", '"$work/wheel-venv/bin/pip" install')]
    assert second < steps[0] and steps == sorted(steps)
    assert '"$work/wheel-venv/bin/predstab" demo' in script


def test_one_version_everywhere():
    import tomllib

    import predstab

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert predstab.__version__ == version
    top = re.search(r"^## (\S+) \((.*?)\)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), flags=re.M)
    assert top.group(1) == version and re.fullmatch(r"\d{4}-\d{2}-\d{2}", top.group(2)), top.group(0)
    # what the package says of itself names no version after this one
    later = [(p.name, v) for p in (ROOT / "src").rglob("*.py")
             for v in re.findall(r"predstab (\d+\.\d+\.\d+)", p.read_text(encoding="utf-8"))
             if tuple(map(int, v.split("."))) > tuple(map(int, version.split(".")))]
    assert not later
    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"build", "twine"} <= {re.split(r"[\[<>=~ ]", r)[0] for r in optional["dev"]}  # CI builds
